"""Stage 3, solve: a linked Card -> domains, trigger, fixes, validator and example, verified."""
