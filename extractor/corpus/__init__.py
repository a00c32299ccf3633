"""Corpus: many projects -> one error knowledge base (a resumable build on Dask, one dataset, one site).

``projects`` reads the list, ``fetch`` turns one project into a tree of files (a PyPI
download unpacked by ``archives``, a git commit, a folder), ``task`` extracts it in a child
process on a worker, ``state`` keeps the build's SQLite record, ``build`` coordinates the
run, and ``dataset`` and ``site`` publish the result.
"""
