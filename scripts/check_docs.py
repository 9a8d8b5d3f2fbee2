#!/usr/bin/env python3
"""Checks README.md and docs/*.md: every relative link's file exists, every #anchor exists (GitHub's slug rules),
and every docs/*.md page is linked from both README.md and docs/index.md. Prints each problem and exits 1 if any."""

import os, re, sys, glob

root = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(root)


def slugs(path):
    out, seen, fence = set(), {}, False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
            continue
        m = None if fence else re.match(r'^#{1,6} (.*?)\s*#*\s*$', line)
        if not m:
            continue
        s = m.group(1).strip().lower()
        s = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', s)
        s = re.sub(r'[^\w\- ]', '', s).replace(' ', '-')
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f'{s}-{n}')
    return out


pages = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md'] + sorted(glob.glob('docs/*.md'))
link = re.compile(r'(?<!\!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)')
linked_from = {}
problems = []
for p in pages:
    text, fence = [], False
    for line in open(p, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
            continue
        if not fence:
            text.append(line)
    for m in link.finditer(''.join(text)):
        target = m.group(1) or m.group(2)
        if re.match(r'^[a-z]+:', target):
            continue
        f, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(p), f)) if f else p
        if not os.path.exists(dest):
            problems.append(f'{p}: missing file {target}')
            continue
        linked_from.setdefault(dest, set()).add(p)
        if anchor and dest.endswith('.md') and anchor not in slugs(dest):
            problems.append(f'{p}: missing anchor {target}')
for d in sorted(glob.glob('docs/*.md')):
    for src in ('README.md', 'docs/index.md'):
        if d != src and src not in linked_from.get(d, set()):
            problems.append(f'{d}: not linked from {src}')
for line in problems:
    print(line, file=sys.stderr)
sys.exit(1 if problems else 0)
