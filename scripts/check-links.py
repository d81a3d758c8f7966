#!/usr/bin/env python3
"""Checks every link in the README, the other READMEs and the DocC catalog.

    scripts/check-links.py

Reads README.md, Benchmarks/README.md, Conformance/README.md and every .md file in
Sources/Pipescope/Pipescope.docc/, and checks each link in them:

- `[text](path)` and `![alt](path)`, and `[label]: path` definitions: the file or folder
  must exist, relative to the file the link is in (a path starting with `/` is relative
  to the repository, as GitHub reads it);
- `[text](#anchor)` and `[text](file.md#anchor)`: the anchor must be a heading of that
  file, named as GitHub names it (lower case; punctuation and symbols removed except `-`
  and `_`; each space a `-`; the second heading of one name gets `-1`, the third `-2`);
- `<doc:Name>`, `<doc:Name#Anchor>` and `[text](<doc:Name#Anchor>)`, in the catalog only:
  Name must be an article of the catalog (its file name), and Anchor one of its
  headings, named as DocC names it (case kept; runs of spaces and dashes become one
  `-`; punctuation and backticks removed).

Links to http(s), mailto and other schemes are not followed, and nothing in a fenced
code block or an inline code span is a link.

In README.md and the catalog, a repository path written as inline code
(`Sources/PipescopeModel/Lints/Lint.swift`, starting with Sources/, Tests/, scripts/,
Resources/, Benchmarks/, Conformance/ or Fuzz/) must exist as well. (Not in the other two
READMEs: they name the files their scripts make, which are gitignored.)

It also checks what the README promises a newcomer: at most 300 lines, and both
`swift run pipescope` and `swift test` within its first 24 lines (one terminal screen).

Prints each problem as `file:line: message` and exits 1 if there is one; otherwise
prints one line, `links: N checked, 0 broken`, and exits 0. Python 3 standard library
only.
"""
import os
import re
import sys
import unicodedata
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOG = Path("Sources/Pipescope/Pipescope.docc")
FILES = [Path("README.md"), Path("Benchmarks/README.md"), Path("Conformance/README.md")]

# a repository path written as inline code: `Sources/…`, `Tests/…`, `scripts/…`
CODE_PATH = re.compile(r"(?<!`)`((?:Sources|Tests|scripts|Resources|Benchmarks|Conformance|Fuzz)"
                       r"/[A-Za-z0-9_.+/-]*)`(?!`)")

README_MAX_LINES = 300
README_FIRST_LINES = 24
README_COMMANDS = ["swift run pipescope", "swift test"]


# --- reading Markdown -------------------------------------------------------------------

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def blank_out(text, start, end):
    """`text` with [start, end) replaced by spaces, newlines kept (offsets stay valid)."""
    middle = "".join("\n" if c == "\n" else " " for c in text[start:end])
    return text[:start] + middle + text[end:]


def mask_fences(text):
    """Blanks fenced code blocks, fences included."""
    lines = text.split("\n")
    out = []
    fence = None
    for line in lines:
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            out.append(" " * len(line))
        elif fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and line.strip() == match.group(1):
                fence = None
            out.append(" " * len(line))
        else:
            out.append(line)
    return "\n".join(out)


def mask_code_spans(text):
    """Blanks the content of inline code spans (a run of N backticks up to the next run
    of exactly N, within one paragraph) and HTML comments, keeping the backticks, so a
    link whose text is code still parses but nothing inside code is a link."""
    text = re.sub(r"<!--.*?-->", lambda m: blank_out(m.group(0), 0, len(m.group(0))),
                  text, flags=re.S)
    i = 0
    while True:
        match = re.compile(r"(?<!`)(`+)(?!`)").search(text, i)
        if not match:
            return text
        ticks = match.group(1)
        closing = re.compile(r"(?<!`)" + ticks + r"(?!`)").search(text, match.end())
        paragraph_end = text.find("\n\n", match.end())
        if not closing or (paragraph_end != -1 and closing.start() > paragraph_end):
            i = match.end()
            continue
        text = blank_out(text, match.end(), closing.start())
        i = closing.end()


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def inline_links(text):
    """(offset, destination) of each inline link or image `[text](destination "title")`
    in masked text; the link's text may hold brackets and span lines."""
    found = []
    i = 0
    while True:
        close = text.find("](", i)
        if close == -1:
            return found
        # find the matching `[`
        depth, j = 0, close
        while j >= 0:
            c = text[j]
            if c == "]" and (j == 0 or text[j - 1] != "\\"):
                depth += 1
            elif c == "[" and (j == 0 or text[j - 1] != "\\"):
                depth -= 1
                if depth == 0:
                    break
            elif c == "\n" and j + 1 < len(text) and text[j + 1] == "\n":
                j = -1
                break
            j -= 1
        k = close + 2
        if j < 0:
            i = k
            continue
        while k < len(text) and text[k] in " \t\n":
            k += 1
        if k < len(text) and text[k] == "<":
            end = text.find(">", k)
            if end == -1 or "\n" in text[k:end]:
                i = k
                continue
            destination = text[k + 1:end]
            k = end + 1
        else:
            start, parens = k, 0
            while k < len(text) and not text[k].isspace():
                if text[k] == "(" and text[k - 1] != "\\":
                    parens += 1
                elif text[k] == ")" and text[k - 1] != "\\":
                    if parens == 0:
                        break
                    parens -= 1
                k += 1
            destination = text[start:k]
        # an optional title, then `)`
        rest = re.match(r'\s*(?:"[^"]*"|\'[^\']*\'|\([^)]*\))?\s*\)', text[k:])
        if rest:
            found.append((j, destination))
            # blank the link so its destination is not read again as an autolink
            i = k + rest.end()
        else:
            i = close + 2


def autolinks(text):
    """(offset, destination) of each `<scheme:...>` autolink outside inline links."""
    return [(m.start(), m.group(1)) for m in re.finditer(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>", text)]


def reference_definitions(text):
    return [(m.start(1), m.group(1)) for m in
            re.finditer(r"^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?", text, flags=re.M)]


def all_links(raw):
    """(line, destination) of every link in a Markdown file's text."""
    text = mask_code_spans(mask_fences(raw))
    links = inline_links(text)
    # autolinks, but not the `<doc:…>` destinations of inline links read above
    spans = set()
    for offset, destination in links:
        spans.add(text.find("<" + destination + ">", offset))
    links += [(o, d) for o, d in autolinks(text) if o not in spans]
    links += reference_definitions(text)
    return sorted((line_of(text, o), d) for o, d in links)


# --- headings and anchors ---------------------------------------------------------------

def headings(raw):
    """(level, text) of each heading outside code blocks: ATX (`## Text`) and setext
    (a line underlined with `===` or `---`)."""
    lines = mask_fences(raw).split("\n")
    found = []
    for n, line in enumerate(lines):
        match = re.match(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$", line)
        if match:
            found.append((len(match.group(1)), match.group(2) or ""))
            continue
        if n > 0 and lines[n - 1].strip() and re.match(r"^ {0,3}(=+|-+)[ \t]*$", line) \
                and not re.match(r"^ {0,3}([-*+]|\d+[.)])\s|^ {0,3}#|^\s*\|", lines[n - 1]) \
                and (n < 2 or not lines[n - 2].strip()):
            found.append((1 if line.strip()[0] == "=" else 2, lines[n - 1].strip()))
    return found


def plain_text(heading):
    """A heading's text as rendered: link and image targets, emphasis and HTML dropped;
    the content of code spans kept, without its backticks."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(\*+|(?<!\w)_+|_+(?!\w))", "", text)
    return text.replace("`", "").strip()


def github_anchor(text):
    kept = []
    for c in plain_text(text).lower():
        category = unicodedata.category(c)
        if c in " -" or category[0] in "LMN" or category == "Pc":
            kept.append(c)
    return "".join(kept).replace(" ", "-")


def github_anchors(raw):
    """Every anchor GitHub gives the file's headings (and `id`/`name` attributes)."""
    seen = {}
    anchors = set()
    for _, text in headings(raw):
        base = github_anchor(text)
        anchor = base
        if base in seen:
            while True:
                seen[base] += 1
                anchor = "%s-%d" % (base, seen[base])
                if anchor not in seen:
                    break
        seen.setdefault(anchor, 0)
        anchors.add(anchor)
    for match in re.finditer(r"<a\s[^>]*(?:name|id)=\"([^\"]+)\"", mask_fences(raw)):
        anchors.add(match.group(1))
    return anchors


def docc_anchors(raw, is_root):
    """The anchors DocC resolves in `<doc:Article#Anchor>`: the article's headings below
    its title, up to `## Topics` or `## See Also`, whose own group headings (`###`) are
    anchors too but nothing else after them is. The catalog's root page resolves none
    (DocC 6.3: "'Overview' doesn't exist at '/Pipescope'")."""
    if is_root:
        return set()
    anchors, in_topics = set(), False
    for level, text in headings(raw):
        if level == 2 and plain_text(text) in ("Topics", "See Also"):
            in_topics = True
        elif level == 3 and in_topics or level > 1 and not in_topics:
            anchors.add(docc_anchor(text))
    return anchors


def docc_anchor(text):
    """DocC's `urlReadableFragment`: trim, join runs of whitespace and dashes with one
    `-`, remove punctuation (but `-`) and backticks; case is kept."""
    parts = re.split(r"[\s\-\u2013\u2014]+", plain_text(text).strip())
    fragment = "-".join(part for part in parts if part)
    return "".join(c for c in fragment
                   if c == "-" or not (unicodedata.category(c)[0] == "P" or c == "`"))


# --- checking ---------------------------------------------------------------------------

class Checker:
    def __init__(self, root):
        self.root = root
        self.texts = {}
        self.problems = []
        self.checked = 0
        self.external = 0
        self.paths = 0
        catalog = root / CATALOG
        self.articles = {p.stem: p for p in sorted(catalog.glob("*.md"))} if catalog.is_dir() else {}

    def text(self, path):
        if path not in self.texts:
            self.texts[path] = path.read_text(encoding="utf-8")
        return self.texts[path]

    def report(self, path, line, message):
        self.problems.append("%s:%d: %s" % (os.path.relpath(path, self.root), line, message))

    def check_file(self, path):
        raw = self.text(path)
        in_catalog = path.parent == self.root / CATALOG
        for line, destination in all_links(raw):
            self.check_link(path, line, destination, in_catalog)

    def check_link(self, path, line, destination, in_catalog):
        broken = lambda reason: self.report(path, line, "broken link %s (%s)" % (destination, reason))
        scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*):", destination)
        if scheme and scheme.group(1).lower() == "doc":
            self.checked += 1
            if not in_catalog:
                return broken("a <doc:> link only resolves inside the DocC catalog %s" % CATALOG)
            reference = destination[len("doc:"):]
            name, _, anchor = reference.partition("#")
            name = name.rstrip("/").split("/")[-1]
            article = self.articles.get(name)
            if article is None:
                return broken("no article %s.md in %s" % (name, CATALOG))
            if anchor:
                is_root = article.stem == CATALOG.stem
                if anchor not in docc_anchors(self.text(article), is_root):
                    return broken("no heading with DocC anchor #%s in %s%s" % (
                        anchor, article.name, " (DocC resolves no anchor on the root page)" if is_root else ""))
            return
        if scheme:
            self.external += 1
            return
        self.checked += 1
        target, _, anchor = destination.partition("#")
        target = urllib.parse.unquote(target)
        if target:
            base = self.root if target.startswith("/") else path.parent
            resolved = (base / target.lstrip("/")).resolve()
            if not resolved.exists():
                return broken("no such file: %s" % os.path.relpath(resolved, self.root))
            try:
                resolved.relative_to(self.root)
            except ValueError:
                return broken("outside the repository")
        else:
            resolved = path
        if anchor and resolved.is_file() and resolved.suffix.lower() in (".md", ".markdown"):
            if urllib.parse.unquote(anchor) not in github_anchors(self.text(resolved)):
                where = "this file" if resolved == path else os.path.relpath(resolved, self.root)
                return broken("no heading with anchor #%s in %s" % (anchor, where))

    def check_code_paths(self, path):
        """A path of this repository written as code (`Sources/PipescopeModel/Lints/Lint.swift`)
        must exist too: files move, and the text that names them must follow."""
        text = mask_fences(self.text(path))
        for match in CODE_PATH.finditer(text):
            named = match.group(1)
            self.paths += 1
            if not (self.root / named.rstrip("/")).exists():
                self.report(path, line_of(text, match.start()),
                            "no such path %s (named in code; the file moved or is gone)" % named)

    def check_readme(self):
        path = self.root / "README.md"
        lines = self.text(path).split("\n")
        count = len(lines) - (1 if lines and lines[-1] == "" else 0)
        if count > README_MAX_LINES:
            self.report(path, count, "README.md is %d lines; it must be at most %d "
                        "(move the detail into an article of %s)" % (count, README_MAX_LINES, CATALOG))
        first = "\n".join(lines[:README_FIRST_LINES])
        for command in README_COMMANDS:
            if not re.search(r"(^|[\s`])" + re.escape(command) + r"($|[\s`])", first, flags=re.M):
                at = next((n + 1 for n, l in enumerate(lines) if command in l), None)
                self.report(path, at or 1, "`%s` must appear within the first %d lines of "
                            "README.md (%s)" % (command, README_FIRST_LINES,
                                                "it is on line %d" % at if at else "it is missing"))


def main():
    checker = Checker(ROOT)
    files = [ROOT / f for f in FILES] + list(checker.articles.values())
    for path in files:
        if not path.is_file():
            checker.report(path, 1, "file to check is missing")
            continue
        checker.check_file(path)
        if path.name != "README.md" or path.parent == ROOT:
            # Benchmarks/ and Conformance/ name the files their scripts make (gitignored)
            checker.check_code_paths(path)
    checker.check_readme()
    if checker.problems:
        print("\n".join(checker.problems))
        print("links: %d checked, %d problems" % (checker.checked, len(checker.problems)))
        return 1
    print("links: %d checked, 0 broken (%d files; %d paths named in code exist; "
          "%d external links not followed)" % (checker.checked, len(files), checker.paths,
                                               checker.external))
    return 0


if __name__ == "__main__":
    sys.exit(main())
