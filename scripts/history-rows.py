#!/usr/bin/env python3
"""Make localisation rows with definition spans from a repository's own history.

The dev set (../shared/eval/localisation-dev-spans.jsonl) covers five repositories; ranking tuned
on it must also hold elsewhere. This script turns the history of any Python or Go repository into
rows of the same shape, so `go run ./bench spans -spans ROWS -trees TREES` scores search and packs
on code the dev set never saw:

    python3 scripts/history-rows.py --git /path/to/repo/.git --repo psf/requests --ext .py \\
        --src '^(src/)?requests/' --rows /tmp/requests.jsonl --trees /tmp/history-trees

A row is a commit that modifies one to three code files of the language (tests, docs and
examples left out) and nothing else but tests, docs and release notes: its message is the query,
its parent the tree searched, the modified code files the gold files. Its spans are derived as the
dev set's README says: the old-side lines of each hunk (a pure insertion: the line before it),
each mapped to its enclosing top-level function or method, else its innermost class or type; an
insertion right after a definition's last line, not indented deeper than the definition, is new
code after it. Definitions are read with score_pack.py's readers (--eval), so the scorer resolves
every name. Commits are taken evenly over the history, at most --per of them. Release, version and
merge commits and messages of fewer than five words are skipped. The rows hold the repository's
commit messages: keep them out of this repository.
"""
import argparse, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP_PATH = re.compile(r"(^|/)(tests?|testing|examples?|docs?)/|_test\.go$|(^|/)test_[^/]*\.py$|conftest\.py$")
NOTES = re.compile(r"(^|/)(tests?|docs?)/|_test\.go$|(^|/)test_[^/]*\.py$|CHANGES|HISTORY|CHANGELOG|\.md$|\.rst$|\.txt$", re.I)
SKIP_SUBJECT = re.compile(r"(?i)(release|bump|version|merge|\d+\.\d+)")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@.*\n((?:[-+\\ ].*\n?)*)", re.M)


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True,
                          errors="replace", check=True).stdout


def enclosing(defs, line):
    """Index of the definition a changed line belongs to, or -1."""
    holding = [i for i, d in enumerate(defs) if d["start"] <= line <= d["end"]]
    funcs = [i for i in holding if defs[i]["kind"] == "function"]
    pool = funcs or holding
    if not pool:
        return -1
    return min(pool, key=lambda i: defs[i]["end"] - defs[i]["start"])


def indent(s):
    return len(s) - len(s.lstrip())


def spans(sp, gitdir, parent, commit, path):
    """Names of the definitions of path (at parent) that commit changes, in order."""
    text = git(gitdir, "show", f"{parent}:{path}")
    defs = sp.definitions(path, text)
    src = text.split("\n")
    diff = git(gitdir, "diff", "-U0", "--indent-heuristic", parent, commit, "--", path)
    names = []
    for m in HUNK.finditer(diff):
        start = int(m.group(1))
        count = 1 if m.group(2) is None else int(m.group(2))
        if count == 0:  # a pure insertion after line start
            added = [l[1:] for l in m.group(3).split("\n") if l.startswith("+")]
            first = next((l for l in added if l.strip()), "")
            after = [d for d in defs if d["end"] == start and indent(first) <= indent(src[d["start"] - 1])]
            lines = [] if after or start == 0 else [start]
        else:
            lines = list(range(start, start + count))
            lines = [l for l in lines if l <= len(src) and src[l - 1].strip()] or lines
        for line in lines:
            i = enclosing(defs, line)
            if i >= 0 and defs[i]["name"] not in names:
                names.append(defs[i]["name"])
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git", required=True, help="the repository's git directory (a bare clone or .git)")
    ap.add_argument("--repo", required=True, help="owner/name, as the rows name it")
    ap.add_argument("--ext", required=True, choices=[".py", ".go"], help="the language's file extension")
    ap.add_argument("--src", default="", help="regular expression the code files' paths match (default: all)")
    ap.add_argument("--per", type=int, default=30, help="most rows (default 30)")
    ap.add_argument("--rows", required=True, help="append the rows (JSON lines) to this file")
    ap.add_argument("--trees", help="unpack each row's tree under this folder, as materialise.sh does")
    ap.add_argument("--eval", default=os.environ.get("CONTEXT_EVAL_DIR", os.path.join(HERE, "..", "..", "shared", "eval")),
                    help="folder of score_pack.py (default ../shared/eval beside the checkout)")
    a = ap.parse_args()
    sys.path.insert(0, a.eval)
    import score_pack as sp

    log = git(a.git, "log", "--no-merges", "--diff-filter=M", "--format=@@%H%x00%P%x00%B%x01", "--name-only")
    cands = []
    for block in log.split("@@")[1:]:
        head, _, files = block.partition("\x01")
        commit, parents, message = head.split("\x00", 2)
        parents, message = parents.split(), message.strip()
        if len(parents) != 1 or len(message.split()) < 5 or SKIP_SUBJECT.match(message):
            continue
        paths = [f for f in files.split("\n") if f.strip()]
        code = [f for f in paths if f.endswith(a.ext) and re.search(a.src, f) and not SKIP_PATH.search(f)]
        if 1 <= len(code) <= 3 and all(f in code or NOTES.search(f) for f in paths):
            cands.append((commit, parents[0], message, code))
    step = max(1, len(cands) // a.per)
    rows = []
    for commit, parent, message, code in cands[::step][:a.per]:
        found = {f: s for f in code if (s := spans(sp, a.git, parent, commit, f))}
        rows.append(dict(repo=a.repo, commit=parent, query=message[:3000], files=code, fix_commit=commit, spans=found))
        if a.trees:
            out = os.path.join(a.trees, f"{a.repo.replace('/', '+')}-{parent[:12]}")
            if not os.path.isdir(out):
                os.makedirs(out)
                tar = subprocess.run(["git", "--git-dir", a.git, "archive", "--format=tar", parent],
                                     capture_output=True, check=True).stdout
                subprocess.run(["tar", "-x", "-C", out], input=tar, check=True)
    with open(a.rows, "a") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{a.repo}: {len(cands)} candidate commits, {len(rows)} rows, "
          f"{sum(1 for r in rows if r['spans'])} with spans", file=sys.stderr)


if __name__ == "__main__":
    main()
