"""Stage 2, link: every file's FileFacts -> the project view and one Card per raise site."""
