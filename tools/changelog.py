"""Build CHANGELOG.md's section for a release from the fragments in changelog.d/.

    python tools/changelog.py 0.2.0 --draft   # print the result, change nothing
    python tools/changelog.py 0.2.0           # add it to CHANGELOG.md, delete the fragments

Run again for the same version (fragments added since), it adds the new fragments to that
release's section, in order, and deletes them.

A fragment is ``changelog.d/<issue>.<kind>[.<slug>].md`` (changelog.d/README.md): one
user-visible change, in Markdown.  The section lists the kinds in `KINDS` order, each fragment a
bullet ending with the issue it came from, ordered by issue number, then by name.  Newest
release first: the section goes right under CHANGELOG.md's title.  Standard library only (towncrier
reads ``<issue>.<kind>.<slug>`` as one fragment per issue and kind, and stops at the second).
Exit 0 on success, 2 on a bad argument or a fragment whose name or kind is unknown.
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KINDS = {
    "spec": "Behaviour changes of the reference (SPEC.md)",
    "feature": "Features",
    "fix": "Fixes",
    "removal": "Removals",
    "doc": "Documentation",
}
NAME = re.compile(r"(?P<issue>[0-9]+)\.(?P<kind>[a-z]+)(?:\.(?P<slug>[A-Za-z0-9_-]+))?\.md")
TITLE = "# Changelog\n"


class FragmentError(Exception):
    pass


@dataclass(frozen=True, order=True)
class Fragment:
    issue: int
    slug: str
    kind: str
    path: Path

    def bullet(self) -> str:
        text = self.path.read_text(encoding="utf-8").strip()
        lines = [line.rstrip() for line in text.splitlines()]
        body = "\n".join(f"  {line}" if line else "" for line in lines).lstrip()
        return f"- {body} (issue {self.issue})"


def fragments(directory: Path) -> list[Fragment]:
    found = []
    for path in sorted(directory.glob("*.md")):
        if path.name == "README.md":
            continue
        match = NAME.fullmatch(path.name)
        if match is None:
            raise FragmentError(f"{path.name}: not <issue>.<kind>[.<slug>].md")
        if match["kind"] not in KINDS:
            raise FragmentError(f"{path.name}: unknown kind {match['kind']!r} ({', '.join(KINDS)})")
        found.append(Fragment(int(match["issue"]), match["slug"] or "", match["kind"], path))
    return sorted(found)


Entry = tuple[str, int, str]
"""(kind, issue, bullet): what a release's section lists."""
BULLET_ISSUE = re.compile(r"\(issue ([0-9]+)\)$")


def section(heading: str, entries: list[Entry]) -> str:
    parts = [f"{heading}\n"]
    for kind, title in KINDS.items():
        bullets = [bullet for k, _, bullet in sorted(entries, key=lambda e: e[1]) if k == kind]
        if bullets:
            parts.append(f"### {title}\n\n" + "\n".join(bullets) + "\n")
    return "\n".join(parts)


def parse_section(text: str) -> list[Entry]:
    """The entries of a section `section` wrote (its heading line excluded)."""
    entries: list[Entry] = []
    titles = {title: kind for kind, title in KINDS.items()}
    for block in re.split(r"^### ", text, flags=re.MULTILINE)[1:]:
        title, _, body = block.partition("\n")
        for bullet in re.split(r"^(?=- )", body.strip(), flags=re.MULTILINE):
            if bullet.strip():
                found = BULLET_ISSUE.search(bullet.strip())
                entries.append((titles[title], int(found[1]) if found else 0, bullet.strip()))
    return entries


def release(changelog: str, version: str, date: datetime.date, found: list[Fragment]) -> str:
    """``changelog`` with ``found`` in ``version``'s section: a new section right under the
    title (newest first; the title is added if missing), or the existing one extended."""
    new: list[Entry] = [(f.kind, f.issue, f.bullet()) for f in found]
    body = changelog.removeprefix(TITLE).lstrip("\n") if changelog.startswith(TITLE) else changelog
    existing = re.search(rf"^## {re.escape(version)} \(.*$", body, flags=re.MULTILINE)
    if existing is None:
        return f"{TITLE}\n{section(f'## {version} ({date.isoformat()})', new)}" + (
            f"\n{body}" if body else ""
        )
    start, heading_end = existing.start(), existing.end()
    following = re.search(r"^## ", body[heading_end:], flags=re.MULTILINE)
    end = heading_end + following.start() if following else len(body)
    entries = parse_section(body[heading_end:end]) + new
    rest = body[end:]
    return f"{TITLE}\n{body[:start]}{section(existing[0], entries)}" + (f"\n{rest}" if rest else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="changelog", description=__doc__.split("\n")[0])
    parser.add_argument("version", help="the release, e.g. 0.2.0")
    parser.add_argument("--draft", action="store_true", help="print the section only")
    parser.add_argument("--directory", type=Path, default=REPO / "changelog.d")
    parser.add_argument("--changelog", type=Path, default=REPO / "CHANGELOG.md")
    parser.add_argument("--date", type=datetime.date.fromisoformat, default=datetime.date.today())
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", args.version):
        parser.error(f"version {args.version!r}: expected X.Y.Z")
    try:
        found = fragments(args.directory)
    except FragmentError as err:
        print(f"changelog: error: {err}", file=sys.stderr)
        return 2
    if not found:
        print(f"changelog: error: no fragments in {args.directory}", file=sys.stderr)
        return 2
    existing = args.changelog.read_text(encoding="utf-8") if args.changelog.exists() else ""
    updated = release(existing, args.version, args.date, found)
    if args.draft:
        print(updated, end="")
        return 0
    args.changelog.write_text(updated, encoding="utf-8")
    for fragment in found:
        fragment.path.unlink()
    print(f"changelog: {args.version}: {len(found)} fragments into {args.changelog.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
