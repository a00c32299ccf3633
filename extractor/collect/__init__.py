"""Stage 1, collect: one SourceFile -> FileFacts | FileFailure, a pure function of its bytes."""
