"""The command line: thin click commands over the library; no analysis logic lives here."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

import click

from .errors import OutputError, RaisedocsError
from .options import EXCERPT_LINES, Options, Pinned, recorded_settings
from .version import VERSION as __version__

log = logging.getLogger("raisedocs")


def run_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by every command that runs an extraction."""
    for decorator in reversed([
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes (default: the CPU count)."),
        click.option("--cache-dir", type=click.Path(file_okay=False), help="Cache folder (default: the user cache dir)."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the cache."),
        click.option("--quiet", "-q", is_flag=True, help="Print only warnings and errors on stderr (no progress, notes or summary)."),
        click.option("--verbose", "-v", is_flag=True, help="Also list every file not analysed, and cache hits."),
    ]):
        command = decorator(command)
    return command


def run_settings(run: dict[str, Any]) -> dict[str, Any]:
    log.setLevel(logging.WARNING if run["quiet"] else logging.INFO)  # --quiet: no notes
    return {
        "jobs": run["jobs"] or os.cpu_count() or 1,
        "use_cache": not run["no_cache"],
        "cache_dir": run["cache_dir"],
    }


def progress_for(run: dict[str, Any]) -> Callable[[str, int, int], None] | None:
    """A progress line on stderr, only when stderr is a terminal and not --quiet."""
    if run["quiet"] or not sys.stderr.isatty():
        return None

    def show(stage: str, done: int, total: int) -> None:
        click.echo(f"\rraisedocs: {stage} {done}/{total}", err=True, nl=False)
        if done == total:
            click.echo("", err=True)

    return show


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="raisedocs")
def cli() -> None:
    """Turn a Python repository into an error catalog: one card per raise site."""


@cli.command()
@click.argument("path", type=click.Path(file_okay=True, dir_okay=True))
@click.option("-o", "--output", "outdir", type=click.Path(),
              help="Docs folder to write (catalog.json, index.md, errors/). Without it, the catalog JSON goes to stdout.")
@click.option("--include", multiple=True, help="Only files whose path or name matches this glob (repeatable).")
@click.option("--exclude", multiple=True, help="Skip files and folders matching this glob (repeatable).")
@click.option("--no-default-excludes", is_flag=True, help="Also walk .git, virtualenvs, build, dist, node_modules, __pycache__.")
@click.option("--exception", "exceptions", multiple=True, help="Only cards whose exception is this class or a subclass of it (repeatable).")
@click.option("--excerpt-lines", type=click.IntRange(min=1), default=EXCERPT_LINES, show_default=True,
              help="Most source lines shown around a raise.")
@click.option("--repo-url",
              help="Forge URL of the repository, for permalinks (default: the one the -o folder records, else with --rev: origin, "
                   "if on GitHub or GitLab).")
@click.option("--rev", help="Read this commit (tag, branch, sha) of the git repository at PATH; permalinks pin to its full sha.")
@click.option("--repo-name",
    help="Name shown on cards (default: the one the -o folder records, else [project] name in PATH/pyproject.toml, package metadata, "
         "the git remote, or the folder name).")
@click.option("--command",
              help="Command that CLI examples start with (default: [tool.raisedocs] command or the console script in PATH/pyproject.toml).")
@click.option("--no-tests", is_flag=True,
              help="Leave out test code: test/, tests/ and testing/ folders, test_*.py, *_test.py, conftest.py, test.py, tests.py.")
@click.option("--card-json", is_flag=True, help="Also write errors/<id>.json per card (catalog.json holds them all).")
@click.option("--site", "site_dir", type=click.Path(), help="Also write the static error-docs site here (as `raisedocs site` does).")
@click.option("--strict", is_flag=True, help="Exit 1 when any file could not be analysed.")
@run_options
def extract(path: str, outdir: str | None, include: tuple[str, ...], exclude: tuple[str, ...], no_default_excludes: bool,
            exceptions: tuple[str, ...], excerpt_lines: int, repo_url: str | None, rev: str | None,
            repo_name: str | None, command: str | None, no_tests: bool, card_json: bool, site_dir: str | None, strict: bool,
            **run: Any) -> None:
    """Extract the error catalog of the Python files under PATH (or of commit --rev of the
    git repository at PATH, read from the object store)."""
    from .inputs import select_sources, unchanged_docs

    options = Options(
        include=include, exclude=exclude, use_default_excludes=not no_default_excludes, exceptions=exceptions,
        excerpt_lines=excerpt_lines, repo_url=repo_url, rev=rev, repo_name=repo_name, command=command, skip_tests=no_tests,
        card_json=card_json, pinned=_pinned(outdir), **run_settings(run),
    )
    selection = select_sources(path, options)
    # The folder this run's inputs wrote, as written: nothing to analyse or render.
    envelope = unchanged_docs(outdir, selection) if outdir is not None and site_dir is None else None
    wrote = False
    if envelope is None:
        from .pipeline import write_catalog

        envelope, wrote = write_catalog(path, selection, outdir, site_dir, progress_for(run), emit)
    if not run["quiet"]:
        if outdir is not None:
            click.echo(f"raisedocs: wrote {outdir}" if wrote else f"raisedocs: {outdir} is unchanged", err=True)
        if site_dir is not None:
            click.echo(f"raisedocs: wrote {site_dir}", err=True)
        click.echo(summary_line(envelope["stats"]), err=True)
    if run["verbose"]:
        for failure in envelope["failures"]:
            click.echo(f"raisedocs: not analysed: {failure['path']} ({failure['stage']}: {failure['error']})", err=True)
    if strict and envelope["failures"]:
        sys.exit(1)


def emit(text: str | Iterable[str]) -> None:
    """Machine output on stdout (a text, or its chunks); a full disk or a closed pipe is a one-line error.

    Raises:
        OutputError: stdout cannot be written.
    """
    try:
        for chunk in (text,) if isinstance(text, str) else text:
            sys.stdout.write(chunk)
        sys.stdout.flush()
    except OSError as exc:
        raise OutputError(f"cannot write to stdout: {exc.strerror or exc}") from None


def summary_line(stats: dict[str, Any]) -> str:
    """The catalog's totals (its ``stats`` data) in one line."""
    unsolved = ", ".join(f"{reason} {count}" for reason, count in stats["unsolved"].items()) or "none"
    statuses = ", ".join(f"{status} {count}" for status, count in stats["statuses"].items()) or "none"
    return (
        f"raisedocs: {stats['raise_sites']} raise sites in {stats['files']} files ({stats['files_failed']} not analysed); "
        f"{stats['cards']} cards, {stats['templates']} with a message template; triggers: {statuses} "
        f"({stats['verified']} verified in the restricted evaluator; `raisedocs verify` runs the examples); unsolved by reason: {unsolved}"
    )


@cli.command()
@click.argument("of", type=click.Choice(["catalog", "diff", "search-index"]), default="catalog")
def schema(of: str) -> None:
    """Print a JSON Schema: of catalog.json (the default), of `diff --format json`, or of search-index.json."""
    from importlib import resources

    click.echo(resources.files("extractor.model").joinpath(f"{of}.schema.json").read_text("utf-8"), nl=False)


@cli.command()
@click.argument("text")
@click.option("--catalog", "catalog_path", default="catalog/catalog.json", show_default=True,
              help="catalog.json, or the docs folder that holds it.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
@click.option("--limit", type=click.IntRange(min=1), default=3, show_default=True, help="Most cards shown.")
@click.option("--validate", is_flag=True, help="Check the whole catalog against the JSON Schema first (seconds on a large one).")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Cache folder (default: the user cache dir).")
@click.option("--no-cache", is_flag=True, help="Neither read nor keep the search index in the cache.")
def explain(text: str, catalog_path: str, output_format: str, limit: int, validate: bool, cache_dir: str | None, no_cache: bool) -> None:
    """Find the cards whose message matches TEXT, a pasted error message ("-" reads stdin).

    Matching reads the catalog's search index: search-index.json beside it, or one built
    once and kept in the user cache, keyed by the catalog's SHA-256."""
    from dataclasses import replace

    from .cache import default_cache_dir
    from .model import dumps
    from .publish.catalog_file import locate_catalog
    from .publish.paste import match_paste, render_match, render_origin
    from .publish.search_index import full_card, open_index

    index = open_index(catalog_path, validate=validate, cache_dir=None if no_cache else cache_dir or default_cache_dir())
    matches, origin = match_paste(sys.stdin.read() if text == "-" else text, index, limit)
    if origin is not None:
        click.echo(render_origin(origin), err=True)
    if not matches:
        click.echo("raisedocs: no card matches this message", err=True)
        sys.exit(1)
    if matches[0].values:  # the best card, solved again from the values the paste shows
        from .solve.personal import personal_fixes

        matches[0] = replace(matches[0], personal=personal_fixes(full_card(catalog_path, matches[0].id), matches[0].values))
    if output_format == "json":
        emit(dumps([replace(match, card=full_card(catalog_path, match.id)) for match in matches]))  # (each from its own line)
    else:
        catalog_dir = os.path.dirname(locate_catalog(catalog_path))
        emit("\n\n".join(render_match(match, catalog_dir) for match in matches) + "\n")


@cli.command()
@click.argument("old")
@click.argument("new")
@click.option("--format", "output_format", type=click.Choice(["md", "json"]), default="md", show_default=True,
              help="Markdown for release notes, or JSON.")
@click.option("--fail-on", default="", help="Comma-separated categories that make the exit status 1 (e.g. added,removed).")
@click.option("--link-base", default="errors/", show_default=True, help="Prefix of links to the new cards.")
@click.option("--validate", is_flag=True, help="Check each catalog file against the JSON Schema first (seconds on a large one).")
@click.option("--site", "site_dir", type=click.Path(),
              help="Also write the changes as a web page here (index.html; new cards linked at --link-base, as .html).")
@click.option("--include", multiple=True, help="For a PATH@REV or source folder side: as given to extract.")
@click.option("--exclude", multiple=True, help="For a PATH@REV or source folder side: as given to extract.")
@click.option("--exception", "exceptions", multiple=True, help="For a PATH@REV or source folder side: as given to extract.")
@click.option("--command", help="For a PATH@REV or source folder side: as given to extract.")
@run_options
def diff(old: str, new: str, output_format: str, fail_on: str, link_base: str, validate: bool, site_dir: str | None,
         include: tuple[str, ...], exclude: tuple[str, ...], exceptions: tuple[str, ...], command: str | None, **run: Any) -> None:
    """Compare the error catalogs OLD and NEW: each a catalog.json, a docs folder, PATH@REV or a source folder."""
    from .incremental import Shared
    from .model import dumps
    from .pipeline import catalog_data
    from .publish.diff import CATEGORIES, counts, diff_catalogs
    from .publish.render import render_diff

    wanted = [c.strip() for c in fail_on.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in CATEGORIES]
    if unknown:
        raise click.BadParameter(f"unknown categories {', '.join(unknown)}; choose from {', '.join(CATEGORIES)}", param_hint="--fail-on")
    # A PATH@REV side is extracted with the options a catalog side records (or none), each
    # overridden by the same option given here; [tool.raisedocs] of that commit fills the rest.
    given = {"include": include, "exclude": exclude, "exceptions": exceptions, "command": command}
    loaded = [_folder_catalog(side, validate) for side in (old, new)]  # each read once; None: to extract
    recorded = next((recorded_settings(catalog) for catalog in loaded if catalog is not None), {})
    options = Options(**{**recorded, **{k: v for k, v in given.items() if _given(k)}}, **run_settings(run))
    shared = Shared()  # the files both sides hold are analysed (or decoded from the cache) once
    old_data, new_data = (c if c is not None else catalog_data(s, options, shared, validate=validate) for s, c in zip((old, new), loaded))
    result = diff_catalogs(old_data, new_data, (old, new))
    emit(dumps(result) if output_format == "json" else render_diff(result, link_base))
    if site_dir is not None:
        from .model import to_data
        from .publish.output import write_docs
        from .publish.site import render_diff_site

        write_docs(render_diff_site(to_data(result), {"name": "raisedocs", "version": __version__}, link_base), site_dir)
    found = counts(result)
    if any(found[c] for c in wanted):
        sys.exit(1)


@cli.command()
@click.argument("docs_dir", type=click.Path())
@click.option("--path", "source", default=".", show_default=True, help="The tree the docs were generated from.")
@click.option("--rev", help="Check against this commit of the git repository at --path.")
@click.option("--repo-url", help="As given to extract.")
@click.option("--repo-name", help="As given to extract.")
@click.option("--exception", "exceptions", multiple=True, help="As given to extract.")
@click.option("--excerpt-lines", type=click.IntRange(min=1), default=EXCERPT_LINES, show_default=True, help="As given to extract.")
@click.option("--command", help="As given to extract.")
@click.option("--include", multiple=True, help="As given to extract.")
@click.option("--exclude", multiple=True, help="As given to extract.")
@click.option("--no-default-excludes", is_flag=True, help="As given to extract.")
@click.option("--no-tests", is_flag=True, help="As given to extract.")
@click.option("--full", is_flag=True, help="Always extract and compare (never trust the folder's state file).")
@run_options
def check(docs_dir: str, source: str, rev: str | None, repo_url: str | None, repo_name: str | None,
          exceptions: tuple[str, ...], excerpt_lines: int, command: str | None, include: tuple[str, ...],
          exclude: tuple[str, ...], no_default_excludes: bool, no_tests: bool, full: bool, **run: Any) -> None:
    """Regenerate the docs in memory and compare with DOCS_DIR: exit 1 when stale.

    The selection and rendering options are those DOCS_DIR's catalog records (the run that
    wrote it), each overridden by the same option given here. A folder whose state says a
    run of the same inputs wrote it, and whose files are as written, passes without
    extracting (see README); --full extracts and compares all the same."""
    from .inputs import select_sources
    from .publish.catalog_file import read_envelope
    from .publish.output import compare_unchanged

    given = {"include": include, "exclude": exclude, "use_default_excludes": not no_default_excludes, "exceptions": exceptions,
             "excerpt_lines": excerpt_lines, "command": command, "repo_name": repo_name, "repo_url": repo_url, "skip_tests": no_tests}
    recorded = read_envelope(docs_dir) or _folder_catalog(docs_dir)  # its options, without reading its cards where it can
    settings = {**recorded_settings(recorded), **{k: v for k, v in given.items() if _given(_PARAMETER[k])}}
    options = Options(rev=rev, **settings, **run_settings(run))
    selection = select_sources(source, options)
    report = None if full else compare_unchanged(docs_dir, selection.identity)  # written by a run of these inputs, as written
    if report is None:
        from .pipeline import compare_catalog

        report = compare_catalog(source, selection, docs_dir, recorded)
    for kind in ("stale", "missing", "orphaned"):
        for rel in report[kind]:
            click.echo(f"{kind}: {rel}")
    if any(report.values()):
        counts = ", ".join(f"{len(report[k])} {k}" for k in ("stale", "missing", "orphaned"))
        click.echo(f"raisedocs: {docs_dir} is out of date ({counts}); regenerate with: {options.extract_command(source, docs_dir)}",
                   err=True)
        sys.exit(1)
    if not run["quiet"]:
        click.echo(f"raisedocs: {docs_dir} is up to date", err=True)


@cli.command()
@click.argument("catalog_path", type=click.Path())
@click.option("-o", "--output", "outdir", required=True, type=click.Path(), help="Site folder to write (replaced atomically).")
@click.option("--validate", is_flag=True, help="Check the catalog against the JSON Schema first.")
def site(catalog_path: str, outdir: str, validate: bool) -> None:
    """Write a static error-docs site for CATALOG_PATH (a catalog.json or a docs folder):
    a page per card, an index with filters, search by pasted message, and the JSON API
    (api/catalog.json, api/errors/<id>.json, api/search-index.json, api/schema/)."""
    from .publish.catalog_file import load_catalog
    from .publish.output import write_docs
    from .publish.site import render_site

    write_docs(render_site(load_catalog(catalog_path, validate=validate)), outdir)
    click.echo(f"raisedocs: wrote {outdir}", err=True)


@cli.command()
@click.argument("target", type=click.Path())
@click.option("--path", "roots", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="A source folder to import from before the installed packages (repeatable; e.g. the tree the docs come from).")
@click.option("--python", "python", default=sys.executable, show_default="this interpreter",
              help="The interpreter whose installed packages run the examples.")
@click.option("--timeout", type=click.FloatRange(min=1), default=10.0, show_default=True, help="Seconds one example may run.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="CPU count",
              help="Examples run at once.")
@click.option("--fail-on", default="",
              help="Comma-separated outcome groups that make the exit status 1: wrong, not_runnable, timeout, fix_fails.")
@click.option("--exclude", multiple=True, help="Leave cards whose path matches this glob unrun (repeatable; e.g. 'asyncio/*').")
@click.option("--env", "env", multiple=True, callback=lambda _ctx, _param, value: _variables(value), metavar="NAME=VALUE",
              help="Set a variable in the examples' minimal environment (repeatable; e.g. VLLM_TARGET_DEVICE=cpu).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def verify(target: str, roots: tuple[str, ...], python: str, timeout: float, jobs: int, fail_on: str, exclude: tuple[str, ...],
           env: tuple[tuple[str, str], ...], quiet: bool) -> None:
    """Run each card's example on the installed code and record what it raised in TARGET
    (a docs folder, rewritten atomically, or a catalog.json).

    This RUNS the code the catalog describes (extract never does): each example in a fresh
    interpreter with a timeout, resource limits, a temporary working folder and HOME, no
    network where the OS allows it, and an audit hook refusing subprocesses, sockets and
    writes outside that folder. That guards against accidents, not against hostile code."""
    from .publish.catalog_file import load_catalog, locate_catalog
    from .verify.runner import Settings, fail_groups, verify_catalog, write_verified

    wanted = [g.strip() for g in fail_on.split(",") if g.strip()]
    unknown = [g for g in wanted if g not in ("wrong", "not_runnable", "timeout", "fix_fails")]
    if unknown:
        raise click.BadParameter(f"unknown groups {', '.join(unknown)}; choose from wrong, not_runnable, timeout, fix_fails",
                                 param_hint="--fail-on")
    data = load_catalog(target)
    settings = Settings(python=python, roots=tuple(os.path.abspath(r) for r in roots), timeout=timeout, jobs=jobs, exclude=exclude,
                        env=env)
    verified = verify_catalog(data, settings)
    write_verified(verified, target, locate_catalog(target))
    counts = verified["stats"]["verification"]
    if not quiet:
        summary = ", ".join(f"{outcome} {n}" for outcome, n in counts.items()) or "no card with a verified trigger"
        click.echo(f"raisedocs: verified {target}: {summary}", err=True)
    if any(fail_groups(verified).get(group) for group in wanted):
        sys.exit(1)


def _variables(given: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``--env``'s NAME=VALUE words as pairs; a word without a name and ``=`` is a usage error."""
    pairs = []
    for word in given:
        name, equals, value = word.partition("=")
        if not equals or not name.isidentifier():
            raise click.BadParameter(f"{word!r} is not NAME=VALUE", param_hint="--env")
        pairs.append((name, value))
    return tuple(pairs)


# Option field -> the check parameter that gives it
_PARAMETER = {"include": "include", "exclude": "exclude", "use_default_excludes": "no_default_excludes", "exceptions": "exceptions",
              "excerpt_lines": "excerpt_lines", "command": "command", "repo_name": "repo_name", "repo_url": "repo_url",
              "skip_tests": "no_tests"}


def _given(parameter: str) -> bool:
    """Whether the command line gave ``parameter`` (not its default)."""
    from click.core import ParameterSource

    return click.get_current_context().get_parameter_source(parameter) == ParameterSource.COMMANDLINE


def _pinned(outdir: str | None) -> Pinned | None:
    """The name and URL the docs folder ``outdir`` records, read without its cards; None
    where it holds no catalog, or one that records no name."""
    from .publish.catalog_file import read_envelope

    return recorded_settings(read_envelope(outdir)).get("pinned") if outdir is not None else None


def _folder_catalog(path: str, validate: bool = False) -> dict[str, Any] | None:
    """The catalog at ``path`` (a docs folder or catalog.json); None where there is none."""
    from .errors import CatalogError
    from .publish.catalog_file import load_catalog

    try:
        return load_catalog(path, validate=validate)
    except CatalogError:
        return None


@cli.group()
def corpus() -> None:
    """Build and publish one error knowledge base of many projects (`build` needs raisedocs[corpus]: Dask)."""


@corpus.command("build")
@click.argument("list_path", metavar="LIST", type=click.Path(dir_okay=False))
@click.option("--state", "state_dir", required=True, type=click.Path(file_okay=False),
              help="State folder: state.sqlite and each project's catalog (created; a second run resumes it).")
@click.option("--scheduler", help="Address of a running Dask scheduler (default: a cluster of this machine's cores).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Local worker processes (default: the CPU count).")
@click.option("--timeout", type=click.FloatRange(min=1), default=1800, show_default=True, help="Seconds one project's extract may take.")
@click.option("--max-attempts", type=click.IntRange(min=1), default=3, show_default=True,
              help="Failed builds of a project at one pin before runs stop retrying it.")
@click.option("--index", default="https://pypi.org", show_default=True, help="PyPI's JSON API base (a mirror's).")
@click.option("--tests/--no-tests", "with_tests", default=False, show_default=True, help="Keep the projects' test code.")
@click.option("--strict", is_flag=True, help="Exit 1 when any listed project is not built.")
@click.option("--quiet", "-q", is_flag=True, help="No line per project, only the summary and errors.")
def corpus_build(list_path: str, state_dir: str, scheduler: str | None, jobs: int | None, timeout: float, max_attempts: int,
                 index: str, with_tests: bool, strict: bool, quiet: bool) -> None:
    """Build the catalog of every project in LIST (one per line: name==version, URL@rev,
    PATH@rev or a folder) that the state does not already hold at that pin."""
    from .corpus.build import BuildSettings, build_corpus
    from .corpus.fetch import FetchSettings

    settings = BuildSettings(fetch=FetchSettings(index=index), timeout=timeout, max_attempts=max_attempts, workers=jobs,
                             scheduler=scheduler, skip_tests=not with_tests)
    tally = build_corpus(list_path, state_dir, settings, (lambda line: None) if quiet else (lambda line: click.echo(line, err=True)))
    failed = sum(tally.failed.values())
    reasons = ", ".join(f"{n} {code}" for code, n in sorted(tally.failed.items()))
    click.echo(f"raisedocs: corpus: {tally.total} projects: {tally.built} built, {tally.skipped} already current, {failed} failed"
               f"{f' ({reasons})' if reasons else ''}; {tally.wall:.1f} s wall, {tally.cpu:.1f} s CPU", err=True)
    if strict and failed:
        sys.exit(1)


@corpus.command("publish")
@click.option("--state", "state_dir", required=True, type=click.Path(file_okay=False), help="State folder of `corpus build`.")
@click.option("-o", "--output", "outdir", required=True, type=click.Path(), help="Site folder to write (replaced atomically).")
@click.option("--base-url", required=True, help="URL the site is served at (JSON-LD, sitemaps, llms.txt), e.g. https://errors.example.org/.")
@click.option("--max-failing", type=click.FloatRange(min=0, max=1), default=0.02, show_default=True,
              help="Largest share of sampled cards that may fail the quality gate's checks.")
def corpus_publish(state_dir: str, outdir: str, base_url: str, max_failing: float) -> None:
    """Write the dataset (manifest.json, index.json, repos.json, repos/, errors/, schema/)
    and the site (a home page, a page per project and per card, search across projects,
    llms.txt, sitemaps) of the projects built in the state folder."""
    from .corpus.gate import GateError
    from .corpus.publish import publish_corpus

    if not base_url.startswith(("https://", "http://")):
        raise click.BadParameter("must be an http(s) URL", param_hint="--base-url")
    try:
        done = publish_corpus(state_dir, outdir, base_url, max_failing)
    except GateError as exc:
        click.echo(f"raisedocs: {exc}; {outdir} is left as it was", err=True)
        sys.exit(1)
    size, page = done.largest_page
    click.echo(f"raisedocs: wrote {outdir}: {done.projects} projects, {done.errors} errors, {done.files} files, "
               f"{done.bytes / 1e6:.1f} MB (largest card page {size / 1000:.1f} KB, {page}); quality gate: {done.failing} of "
               f"{done.sampled} sampled cards failing", err=True)


@cli.command()
@click.option("--catalog", "catalogs", multiple=True, type=click.Path(),
              help="A docs folder or catalog.json from `extract` (repeatable).")
@click.option("--dataset", "datasets", multiple=True, type=click.Path(file_okay=False),
              help="A folder written by `corpus publish` (repeatable): every project in it.")
@click.option("--site-url", "site_urls", multiple=True,
              help="The URL of the site of the --catalog at the same place (repeatable): get_error then links the card's page.")
def mcp(catalogs: tuple[str, ...], datasets: tuple[str, ...], site_urls: tuple[str, ...]) -> None:
    """Serve the catalogs to coding agents: a stdio MCP server with the tools search_error,
    get_error, explain and list_repos (needs raisedocs[mcp]). It only reads the catalogs given."""
    if not catalogs and not datasets:
        raise click.UsageError("give at least one --catalog or --dataset")
    try:
        from .serve.server import build_server
    except ImportError:
        raise click.ClickException('the MCP server needs the MCP SDK: pip install "raisedocs[mcp]"') from None
    from .serve.library import load_library

    library = load_library(list(catalogs), list(datasets), list(site_urls))
    for path, reason in sorted(library.failures.items()):
        log.warning(f"warning: not loaded: {path}: {reason}")
    build_server(library).run("stdio")


class _StderrHandler(logging.Handler):
    """The library's warnings, one line each on whatever ``sys.stderr`` is when they happen."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(self.format(record), err=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point: one-line errors and exit 2 for bad arguments and whole-run failures."""
    if not any(isinstance(h, _StderrHandler) for h in log.handlers):
        handler = _StderrHandler(logging.INFO)
        handler.setFormatter(logging.Formatter("raisedocs: %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    try:
        cli.main(args=argv, prog_name="raisedocs", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        click.echo(f"raisedocs: error: {exc.format_message()}", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("raisedocs: aborted", err=True)
        return 130
    except RaisedocsError as exc:
        click.echo(f"raisedocs: error: {exc}", err=True)
        return 2
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # the process boundary: a bug of ours gets one line, not a traceback
        if os.environ.get("RAISEDOCS_DEBUG"):
            raise
        click.echo(f"raisedocs: internal error: {type(exc).__name__}: {exc} (set RAISEDOCS_DEBUG=1 for the traceback)", err=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
