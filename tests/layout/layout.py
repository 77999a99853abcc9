#!/usr/bin/env python3
"""The source layout's rules, checked on the tree (docs/ARCHITECTURE.md):

- core/ folders form layers: cli < loader < plan < results < engine < core/
  (main.c, merge_main.c). A file includes only its own folder, folders
  before it, common/ and the SDK: no circles between folders.
- common/ includes only itself and the SDK.
- plugins/ and sdk/ never include a core/ header nor compile a core/
  source; they build against sdk/, common/ and plugins/common only.
- tests link the core's folder libraries; none compiles a core/ source.
- with --sizes: no production file over 800 lines, no function over 100
  lines (core/, common/, plugins/, sdk/, bench/; tests aside), and no
  test file over 800 lines either (tests/, and the tests of the SDK's
  examples and of any plugin: their functions unchecked, a test's table
  of cases may run long).

Prints one line per breach and exits 1, or prints a summary and exits 0.
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
LAYERS = ['cli', 'loader', 'plan', 'results', 'engine', '']  # '' : core/ itself
MAX_FILE = 800
MAX_FUNC = 100
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A function definition: a line starting in column 0 with a name and '(',
# not ending in ';', followed by a '{' line; its end is the next '}' in
# column 0.
FUNC = re.compile(r'^[A-Za-z_][^;=]*\b([A-Za-z_]\w*)\s*\([^;]*$')

breaches = []


def sources(top):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                yield os.path.join(d, f)


def rel(p):
    return os.path.relpath(p, ROOT)


def core_folder(path):
    parts = rel(path).split(os.sep)
    return parts[1] if len(parts) > 2 else ''


def check_core():
    for p in sources('core'):
        own = core_folder(p)
        allowed = set(LAYERS[:LAYERS.index(own) + 1]) - {''}
        for inc in INC.findall(open(p, encoding='utf-8').read()):
            head = inc.split('/')[0] if '/' in inc else None
            if head is None:
                # A generated header of core/ (shb_build_*.h) or a
                # plain name: must be a file beside the includer.
                if not inc.startswith('shb_build_') and \
                   not os.path.exists(os.path.join(os.path.dirname(p), inc)):
                    breaches.append('%s: #include "%s": name core headers '
                                    'by folder ("results/hist.h")' % (rel(p), inc))
                continue
            if head == 'common':
                continue
            if head not in LAYERS:
                breaches.append('%s: #include "%s": no such core folder'
                                % (rel(p), inc))
            elif head not in allowed:
                breaches.append('%s (%s) includes "%s": %s/ comes after %s/ '
                                'in the layers %s' % (rel(p), own or 'core',
                                inc, head, own or 'core', ' < '.join(
                                    l or 'core' for l in LAYERS)))


def check_common():
    for p in sources('common'):
        for inc in INC.findall(open(p, encoding='utf-8').read()):
            if not inc.startswith('common/') and '/' in inc:
                breaches.append('%s includes "%s": common/ depends on '
                                'nothing but the SDK' % (rel(p), inc))


def check_plugins():
    for top in ('plugins', 'sdk'):
        for p in sources(top):
            for inc in INC.findall(open(p, encoding='utf-8').read()):
                if inc.split('/')[0] in ('core',) + tuple(l for l in LAYERS if l):
                    breaches.append('%s includes "%s": plugins and the SDK '
                                    'build against sdk/ and common/ only'
                                    % (rel(p), inc))
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            if 'meson.build' in files:
                m = os.path.join(d, 'meson.build')
                if re.search(r"['/]core/", open(m, encoding='utf-8').read()):
                    breaches.append('%s names a core/ path: plugins and the '
                                    'SDK never compile core sources' % rel(m))


def check_tests():
    for d, _, files in os.walk(os.path.join(ROOT, 'tests')):
        if 'meson.build' in files:
            m = os.path.join(d, 'meson.build')
            for line in open(m, encoding='utf-8'):
                code = line.split('#', 1)[0]
                if re.search(r"core/[\w/]+\.c\b", code):
                    breaches.append('%s: compiles a core source (%s): link the '
                                    'core libraries (core_dep) instead'
                                    % (rel(m), code.strip()))


def functions(text):
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        m = FUNC.match(lines[i])
        if m and not lines[i].startswith(('typedef', 'struct', 'enum', '#')):
            j = i
            while j < len(lines) and lines[j] != '{' and \
                    not lines[j].rstrip().endswith(('{', ';')):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith('{'):
                k = j + 1
                while k < len(lines) and lines[k] != '}':
                    k += 1
                yield m.group(1), i + 1, k - j - 1
                i = k
        i += 1


def test_code(p):
    return rel(p).startswith('tests' + os.sep) or '/tests/' in p


def check_sizes():
    for top in ('core', 'common', 'plugins', 'sdk', 'bench'):
        for p in sources(top):
            if test_code(p):  # sdk/examples/*/tests: below, as tests/
                continue
            text = open(p, encoding='utf-8').read()
            n = text.count('\n')
            if n > MAX_FILE:
                breaches.append('%s: %d lines (at most %d)' % (rel(p), n, MAX_FILE))
            if p.endswith('.c'):
                for name, line, body in functions(text):
                    if body > MAX_FUNC:
                        breaches.append('%s:%d: %s() is %d lines (at most %d)'
                                        % (rel(p), line, name, body, MAX_FUNC))
    for p in (p for top in ('tests', 'plugins', 'sdk') for p in sources(top)
              if test_code(p)):
        n = open(p, encoding='utf-8').read().count('\n')
        if n > MAX_FILE:
            breaches.append('%s: %d lines (at most %d; split it by concern)'
                            % (rel(p), n, MAX_FILE))


def main():
    check_core()
    check_common()
    check_plugins()
    check_tests()
    if '--sizes' in sys.argv:
        check_sizes()
    for b in breaches:
        print(b)
    if breaches:
        print('layout: %d breaches' % len(breaches))
        return 1
    print('layout: core layers %s hold; common/, plugins/, sdk/ and tests/ '
          'clean%s' % (' < '.join(l or 'core' for l in LAYERS),
                       '; no file over %d lines (tests included), no '
                       'function over %d' % (MAX_FILE, MAX_FUNC) if '--sizes' in sys.argv else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
