"""Verify: run each card's example against the installed code, in a sandbox, and record what happened."""
