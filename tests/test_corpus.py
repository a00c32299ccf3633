"""corpus: the list, hostile archives, PyPI downloads (a local fake of its JSON API)."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from extractor.corpus.archives import Limits, unpack
from extractor.corpus.fetch import FetchSettings, Resolved, choose_file, materialize, resolve
from extractor.corpus.projects import BuildError, ListError, Project, read_list
from extractor.model.codes import BuildFailure, ProjectKind

from .corpus_helpers import FIXTURES, fake_pypi, make_wheel, publish_release
from .helpers import make_git_repo


def _tar(path: Path, members: list[tarfile.TarInfo], data: bytes = b"x = 1\n") -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for info in members:
            archive.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return path


def _member(name: str, kind: bytes = tarfile.REGTYPE, size: int = 6, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, size if kind == tarfile.REGTYPE else 0, link
    return info


def test_unpack_writes_a_sdists_files(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "p.tar.gz", [_member("p-1.0/p/__init__.py"), _member("p-1.0/setup.py")])
    (tmp_path / "out").mkdir()
    assert unpack(str(archive), str(tmp_path / "out")) == 2
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.py")) == [
        "p-1.0/p/__init__.py", "p-1.0/setup.py"]


@pytest.mark.parametrize(("member", "wording"), [
    (_member("../evil.py"), "would land outside its folder"),
    (_member("p/../../evil.py"), "would land outside its folder"),
    (_member("/etc/evil.py"), "absolute"),
    (_member("p/link.py", tarfile.SYMTYPE, link="/etc/passwd"), "is a link"),
    (_member("p/hard.py", tarfile.LNKTYPE, link="p/a.py"), "is a link"),
    (_member("p/dev", tarfile.CHRTYPE), "device or special file"),
    (_member("p/fifo", tarfile.FIFOTYPE), "device or special file"),
])
def test_unpack_refuses_a_tar_member_and_writes_nothing(tmp_path: Path, member: tarfile.TarInfo, wording: str) -> None:
    archive = _tar(tmp_path / "bad.tar.gz", [_member("p/a.py"), member])
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(BuildError) as caught:
        unpack(str(archive), str(out))
    assert caught.value.code == BuildFailure.ARCHIVE_REFUSED
    assert wording in caught.value.detail
    assert os.listdir(out) == []
    assert not (tmp_path / "evil.py").exists()


def test_unpack_refuses_a_zip_symlink(tmp_path: Path) -> None:
    path = tmp_path / "bad.whl"
    with zipfile.ZipFile(path, "w") as archive:
        info = zipfile.ZipInfo("p/link.py")
        info.external_attr = (0o120777 << 16)  # a symlink's mode
        archive.writestr(info, "/etc/passwd")
    (tmp_path / "out").mkdir()
    with pytest.raises(BuildError) as caught:
        unpack(str(path), str(tmp_path / "out"))
    assert (caught.value.code, caught.value.detail) == (BuildFailure.ARCHIVE_REFUSED, "member 'p/link.py' is not a regular file or folder")


def test_unpack_stops_a_zip_bomb_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "bomb.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("p/zeros.py", b"0" * (8 << 20))
    (tmp_path / "out").mkdir()
    with pytest.raises(BuildError) as caught:
        unpack(str(path), str(tmp_path / "out"), Limits(max_ratio=50))
    assert caught.value.code == BuildFailure.ARCHIVE_TOO_LARGE
    assert "a zip bomb?" in caught.value.detail
    assert os.listdir(tmp_path / "out") == []


def test_unpack_limits_files_and_member_size(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "many.tar.gz", [_member(f"p/m{i}.py") for i in range(5)])
    (tmp_path / "out").mkdir()
    with pytest.raises(BuildError, match="5 files \\(the limit is 4\\)"):
        unpack(str(archive), str(tmp_path / "out"), Limits(max_files=4))
    with pytest.raises(BuildError, match="unpacks to 6 bytes"):
        unpack(str(archive), str(tmp_path / "out"), Limits(max_member_bytes=5))


def test_unpack_refuses_what_is_no_archive(tmp_path: Path) -> None:
    (tmp_path / "junk").write_bytes(b"not an archive")
    (tmp_path / "out").mkdir()
    with pytest.raises(BuildError) as caught:
        unpack(str(tmp_path / "junk"), str(tmp_path / "out"))
    assert (caught.value.code, caught.value.detail) == (BuildFailure.ARCHIVE_UNREADABLE, "junk is neither a zip nor a tar archive")


def test_read_list_reads_every_kind(tmp_path: Path) -> None:
    repo = tmp_path / "lib"
    make_git_repo(repo, [("one", {"lib.py": "x = 1\n"})])
    (tmp_path / "folder").mkdir()
    listing = tmp_path / "list.txt"
    listing.write_text("# projects\nClick==8.1.7\nsix  # the latest\ngit+https://github.com/o/Requests.git@v2.0\n"
                       "lib@main\n./folder\n\n")
    assert read_list(str(listing)) == [
        Project(key="click", kind=ProjectKind.PYPI, source="Click", pin="8.1.7", line="Click==8.1.7"),
        Project(key="six", kind=ProjectKind.PYPI, source="six", pin=None, line="six"),
        Project(key="requests", kind=ProjectKind.GIT, source="https://github.com/o/Requests.git", pin="v2.0",
                line="git+https://github.com/o/Requests.git@v2.0"),
        Project(key="lib", kind=ProjectKind.GIT, source=str(repo), pin="main", line="lib@main"),
        Project(key="folder", kind=ProjectKind.FOLDER, source=str(tmp_path / "folder"), pin=None, line="./folder"),
    ]


@pytest.mark.parametrize(("text", "wording"), [
    ("click>=8\n", "list.txt:1: not a PyPI requirement"),
    ("six\nSix==1.0\n", "list.txt:2: 'six' is listed twice (also as 'six')"),
])
def test_read_list_refuses_a_bad_line(tmp_path: Path, text: str, wording: str) -> None:
    (tmp_path / "list.txt").write_text(text)
    with pytest.raises(ListError, match=wording.replace("(", "\\(").replace(")", "\\)")):
        read_list(str(tmp_path / "list.txt"))


def test_choose_file_prefers_a_pure_wheel_then_the_sdist() -> None:
    files = [{"filename": "p-1.0-cp311-cp311-manylinux_x86_64.whl"}, {"filename": "p-1.0.tar.gz"},
             {"filename": "p-1.0-py3-none-any.whl", "yanked": True}]
    assert choose_file(files) == {"filename": "p-1.0.tar.gz"}
    assert choose_file([*files, {"filename": "p-1.0-py3-none-any.whl"}]) == {"filename": "p-1.0-py3-none-any.whl"}
    assert choose_file([{"filename": "p-1.0.exe"}]) is None


def test_materialize_downloads_checks_and_unpacks_a_release(tmp_path: Path) -> None:
    wheel = make_wheel(FIXTURES / "tinyerr", tmp_path / "tinyerr-1.0-py3-none-any.whl")
    publish_release(tmp_path / "index", "tinyerr", "1.0", wheel)
    project = Project(key="tinyerr", kind=ProjectKind.PYPI, source="tinyerr", pin=None, line="tinyerr")
    with fake_pypi(tmp_path / "index") as url:
        settings = FetchSettings(index=url)
        resolved = resolve(project, settings)
        assert resolved == Resolved(version="1.0")
        (tmp_path / "work").mkdir()
        tree = materialize(project, resolved, str(tmp_path / "work"), settings)
    assert Path(tree.path, "tinyerr", "__init__.py").read_bytes() == (FIXTURES / "tinyerr" / "tinyerr" / "__init__.py").read_bytes()
    assert tree.artifact is not None and tree.artifact.startswith("tinyerr-1.0-py3-none-any.whl sha256:")
    assert not Path(tmp_path / "work" / "download").exists()


def test_materialize_refuses_bytes_that_do_not_match_the_index(tmp_path: Path) -> None:
    wheel = make_wheel(FIXTURES / "tinyerr", tmp_path / "tinyerr-1.0-py3-none-any.whl")
    publish_release(tmp_path / "index", "tinyerr", "1.0", wheel, sha256="0" * 64)
    project = Project(key="tinyerr", kind=ProjectKind.PYPI, source="tinyerr", pin="1.0", line="tinyerr==1.0")
    with fake_pypi(tmp_path / "index") as url, pytest.raises(BuildError) as caught:
        materialize(project, Resolved(version="1.0"), str(tmp_path), FetchSettings(index=url))
    assert caught.value.code == BuildFailure.DOWNLOAD_FAILED
    assert "is not the index's 0000" in caught.value.detail


def test_resolve_names_what_does_not_exist(tmp_path: Path) -> None:
    (tmp_path / "index").mkdir()
    with fake_pypi(tmp_path / "index") as url:
        missing = Project(key="nope", kind=ProjectKind.PYPI, source="nope", pin=None, line="nope")
        with pytest.raises(BuildError) as caught:
            resolve(missing, FetchSettings(index=url))
    assert (caught.value.code, caught.value.detail) == (BuildFailure.NOT_FOUND, "nope: PyPI answered 404")
    folder = Project(key="gone", kind=ProjectKind.FOLDER, source=str(tmp_path / "gone"), pin=None, line="gone")
    with pytest.raises(BuildError, match="no folder"):
        resolve(folder, FetchSettings())
    repo = tmp_path / "repo"
    make_git_repo(repo, [("one", {"a.py": "x = 1\n"})])
    with pytest.raises(BuildError, match="unknown revision"):
        resolve(Project(key="repo", kind=ProjectKind.GIT, source=str(repo), pin="v9", line="repo@v9"), FetchSettings())


def test_state_retries_a_failed_project_until_its_attempts_reach_the_limit(tmp_path: Path) -> None:
    from extractor.corpus.state import Built, State

    state = State(str(tmp_path / "state"))
    project = Project(key="evil", kind=ProjectKind.PYPI, source="evil", pin="1.0", line="evil==1.0")
    state.sync([project])
    pin = Resolved(version="1.0")
    for attempt in (1, 2, 3):
        assert not state.is_current("evil", pin, "code-a", max_attempts=3)
        state.start("evil", pin, "code-a")
        state.finish(Built(key="evil", resolved=pin, raisedocs="code-a", failure=BuildFailure.ARCHIVE_REFUSED, detail="x"), None)
        assert (state.row("evil")["status"], state.row("evil")["attempts"]) == ("failed", attempt)
    assert state.is_current("evil", pin, "code-a", max_attempts=3)  # given up at this pin
    assert not state.is_current("evil", Resolved(version="1.1"), "code-a", max_attempts=3)  # a new release is tried
    assert not state.is_current("evil", pin, "code-b", max_attempts=3)  # and so is a new raisedocs
    state.start("evil", Resolved(version="1.1"), "code-a")
    assert state.row("evil")["attempts"] == 0  # (failures at another pin are forgotten)
    state.close()
