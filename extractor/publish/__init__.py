"""Stage 4, publish: catalog JSON data -> docs folder, diffs and lookups; never libcst or the solver."""
