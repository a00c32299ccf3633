"""Dataset: built projects' catalogs -> the corpus dataset's records and the JSON Schemas of its files.

The dataset is plain JSON beside the site:

- ``manifest.json``: the dataset's version (a digest of every data file), its counts, and
  each data file with its byte size and sha256;
- ``index.json``: one compact record per error; above ``SHARD_RECORDS`` records it lists
  shards ``index/NNNN.json`` instead;
- ``repos.json``: every listed project, built or failed (with why);
- ``repos/<key>.json``: one project: its record, its catalog's envelope, its errors' ids;
- ``errors/<id>.json``: one error: its card as the project's catalog.json holds it;
- ``search-index/<key>.json``: one project's search index, as a docs folder's
  ``search-index.json`` (what ``raisedocs mcp --dataset`` matches a pasted message against).

An error's id is ``<key>.<card id>``: a project's key never holds a dot, and a card id is
unique in its catalog, so ids are unique across projects. ``schema/`` holds a JSON Schema
per file kind (``SCHEMAS``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..model import dumps_data
from ..publish.ranking import standing

DATASET_SCHEMA = "raisedocs-corpus/1"
SHARD_RECORDS = 10_000


def error_id(key: str, card_id: str) -> str:
    return f"{key}.{card_id}"


def page_path(key: str, card_id: str) -> str:
    return f"{key}/errors/{card_id}.html"


def project_record(row: dict[str, Any]) -> dict[str, Any]:
    """A project as ``repos.json`` lists it (a state row): a built one with its page and data."""
    built = row["status"] == "done"
    counts = {name: row[name] or 0 for name in ("cards", "verified", "examples", "files", "files_failed")}
    return {
        "key": row["key"], "kind": row["kind"], "source": row["source"], "version": row["version"], "sha": row["sha"],
        "artifact": row["artifact"], "status": row["status"], "reason": row["reason"], "detail": row["detail"],
        "counts": counts if built else None,
        "page": f"{row['key']}/index.html" if built else None, "data": f"repos/{row['key']}.json" if built else None,
    }


def index_record(project: dict[str, Any], card: dict[str, Any]) -> dict[str, Any]:
    """One error as ``index.json`` lists it."""
    trigger = card.get("trigger") or {}
    return {
        "id": error_id(project["key"], card["id"]), "repo": project["key"], "version": project["version"],
        "exception": card["exception"]["display"], "template": card["message"].get("template"),
        "path": card["path"], "line": card["line"], "function": card.get("function"),
        "status": trigger.get("status"), "verified": bool(trigger.get("verified")), "example": bool(card.get("example")),
        "standing": standing(card), "page": page_path(project["key"], card["id"]),
        "data": f"errors/{error_id(project['key'], card['id'])}.json",
    }


def error_file(project: dict[str, Any], card: dict[str, Any], published: dict[str, Any]) -> str:
    """``errors/<id>.json``: the card (``published``: as catalog.json holds it) and where it stands."""
    return dumps_data({
        "schema": "raisedocs-corpus-error/1", "id": error_id(project["key"], card["id"]), "repo": project["key"],
        "version": project["version"], "sha": project["sha"], "page": page_path(project["key"], card["id"]), "card": published,
    })


def repo_file(project: dict[str, Any], envelope: dict[str, Any], card_ids: list[str]) -> str:
    """``repos/<key>.json``: the project's record, its catalog without the cards, its errors' ids."""
    catalog = {key: envelope[key] for key in ("source", "generator", "options", "stats", "failures") if key in envelope}
    return dumps_data({"schema": "raisedocs-corpus-repo/1", **project, "catalog": catalog,
                       "errors": [error_id(project["key"], i) for i in card_ids]})


def index_files(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``index.json``, and its shards where the records are more than one shard holds."""
    if len(records) <= SHARD_RECORDS:
        return [("index.json", dumps_data({"schema": "raisedocs-corpus-index/1", "count": len(records), "records": records}))]
    shards = [(f"index/{n:04d}.json", records[start:start + SHARD_RECORDS])
              for n, start in enumerate(range(0, len(records), SHARD_RECORDS))]
    files = [(path, dumps_data({"schema": "raisedocs-corpus-index/1", "count": len(part), "records": part})) for path, part in shards]
    top = dumps_data({"schema": "raisedocs-corpus-index/1", "count": len(records), "shards": [path for path, _ in shards]})
    return [("index.json", top), *files]


def manifest_file(files: dict[str, tuple[int, str]], counts: dict[str, int], generator: dict[str, Any], base_url: str) -> str:
    """``manifest.json``: every data file (path -> bytes, sha256), the dataset's version (a
    digest of that list, so that the same data has the same version), and the URL it is
    published at."""
    listed = [{"path": path, "bytes": size, "sha256": digest} for path, (size, digest) in sorted(files.items())]
    version = hashlib.sha256(json.dumps(listed, sort_keys=True).encode()).hexdigest()[:16]
    return dumps_data({"schema": DATASET_SCHEMA, "version": version, "generator": generator, "base_url": base_url, "counts": counts,
                       "files": listed})


_NULLABLE_STRING = {"type": ["string", "null"]}
_ID = {"type": "string", "pattern": r"^[a-z0-9-]+\.[0-9a-z_-]+$"}
_RECORD = {
    "type": "object", "additionalProperties": False,
    "required": ["id", "repo", "version", "exception", "template", "path", "line", "function", "status", "verified", "example",
                 "standing", "page", "data"],
    "properties": {
        "id": _ID, "repo": {"type": "string"}, "version": _NULLABLE_STRING, "exception": {"type": "string"},
        "template": _NULLABLE_STRING, "path": {"type": "string"}, "line": {"type": "integer", "minimum": 1},
        "function": _NULLABLE_STRING, "status": _NULLABLE_STRING, "verified": {"type": "boolean"}, "example": {"type": "boolean"},
        "standing": {"type": "string"}, "page": {"type": "string"}, "data": {"type": "string"},
    },
}
_PROJECT = {
    "type": "object",
    "required": ["key", "kind", "source", "version", "sha", "artifact", "status", "reason", "detail", "counts", "page", "data"],
    "properties": {
        "key": {"type": "string", "pattern": "^[a-z0-9-]+$"}, "kind": {"enum": ["pypi", "git", "folder"]},
        "source": {"type": "string"}, "version": _NULLABLE_STRING, "sha": _NULLABLE_STRING, "artifact": _NULLABLE_STRING,
        "status": {"enum": ["pending", "running", "done", "failed"]}, "reason": _NULLABLE_STRING, "detail": _NULLABLE_STRING,
        "counts": {"type": ["object", "null"], "additionalProperties": {"type": "integer", "minimum": 0}},
        "page": _NULLABLE_STRING, "data": _NULLABLE_STRING,
    },
}


def _schema(name: str, body: dict[str, Any]) -> dict[str, Any]:
    # (no $id: a $ref to catalog.schema.json resolves beside the file, wherever the dataset is served)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": f"raisedocs corpus {name}", **body}


SCHEMAS: dict[str, dict[str, Any]] = {
    "manifest.schema.json": _schema("manifest", {
        "type": "object", "required": ["schema", "version", "generator", "base_url", "counts", "files"],
        "properties": {
            "schema": {"const": DATASET_SCHEMA}, "version": {"type": "string"}, "generator": {"type": "object"},
            "base_url": {"type": "string", "pattern": "^https?://"},
            "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            "files": {"type": "array", "items": {
                "type": "object", "additionalProperties": False, "required": ["path", "bytes", "sha256"],
                "properties": {"path": {"type": "string"}, "bytes": {"type": "integer", "minimum": 0},
                               "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}}},
        }}),
    "index.schema.json": _schema("index", {
        "type": "object", "required": ["schema", "count"],
        "properties": {"schema": {"const": "raisedocs-corpus-index/1"}, "count": {"type": "integer", "minimum": 0},
                       "records": {"type": "array", "items": _RECORD}, "shards": {"type": "array", "items": {"type": "string"}}},
        "oneOf": [{"required": ["records"]}, {"required": ["shards"]}]}),
    "repos.schema.json": _schema("repos", {
        "type": "object", "required": ["schema", "projects"],
        "properties": {"schema": {"const": "raisedocs-corpus-repos/1"}, "projects": {"type": "array", "items": _PROJECT}}}),
    "repo.schema.json": _schema("repo", {
        "allOf": [_PROJECT, {"type": "object", "required": ["schema", "catalog", "errors"],
                             "properties": {"schema": {"const": "raisedocs-corpus-repo/1"}, "catalog": {"type": "object"},
                                            "errors": {"type": "array", "items": _ID}}}]}),
    "error.schema.json": _schema("error", {
        "type": "object", "additionalProperties": False, "required": ["schema", "id", "repo", "version", "sha", "page", "card"],
        "properties": {"schema": {"const": "raisedocs-corpus-error/1"}, "id": _ID, "repo": {"type": "string"},
                       "version": _NULLABLE_STRING, "sha": _NULLABLE_STRING, "page": {"type": "string"},
                       "card": {"$ref": "catalog.schema.json#/$defs/Card"}}}),
}
