# ruff: noqa: E501  (each TOOLS entry is a shell command recorded verbatim in MANIFEST.tsv)
"""Build issue 24's two new splits of the wider ingest-lint corpus: ``shape-tune`` (new
tools and organisations, used while the shape model was built) and ``first-contact``
(other tool families and other organisations, generated before any tuning, set aside,
and scored once at the end).

    python bench/ingest_lint_wild.py [--split shape-tune|first-contact|first-contact-2|first-contact-3|all] [--setup]

The two splits share no tool family and no source organisation, with each other or
with the corpora before them:

* ``shape-tune`` rejects: pahole, gcc's IPA, GIMPLE and RTL dumps and ``-fdump-lang-raw``,
  npm ls, esbuild's minifier, pyflowchart, a call narration written from CPython's
  ``trace``, pipdeptree, ``python -X importtime``, cProfile/pstats, Go's compiler and
  objdump, bison's automaton report, objdump's DWARF, ``javac -Xprint``; over liblzma's
  examples, Go's standard library, CPython's ``fractions``/``statistics``/``calendar``,
  commander and the npm tree of $WILD/node. Accepts: Git's technical design documents
  (git-doc) and Debian's policy documents and developers' reference.
* ``first-contact`` rejects: valgrind (callgrind, massif, cachegrind), gprof, gdb,
  LLVM (llvm-dwarfdump, llvm-readobj, llvm-objdump, llvm-nm), V8 (``node
  --print-bytecode``, ``--cpu-prof``, ``--prof-process``), terser, uglify-js,
  SQLite's ``EXPLAIN``, py-spy, pyinstrument, yappi, lizard, vulture, code2flow and uv;
  over libpng's ``pngtest``, expat's and libidn2's examples, express and lodash,
  CPython's ``difflib``/``heapq``/``configparser``/``ipaddress``/``email``. Accepts: the
  PyPA's design and development documents (pip's and setuptools' sdists) and Perl's
  policy and design documents (perl-doc). Every accept of that split is labelled
  accept by rule, before linting: each is a design or policy document whose decision
  is carried by prose (docs/ingest_lint.md, "Where the line is").

``first-contact-2`` was generated after the model was frozen, from tool families and
organisations of its own: luac, Pygments, pytest's collection, ruff's import graph, GNU
ld's link map, cpp's macro table, gcc's ``-aux-info``, ``-fstack-usage`` and
``-fverbose-asm``, mypy's any-exprs report, jdeprscan, cargo metadata; over penlight
(Lua), CPython's ``heapq``/``bisect``/``textwrap``/``email``/``asyncio``/``json``, libpng
and libidn2's examples; accepts from SQLite's design documents (sqlite3-doc, HTML made
text) and the GNU coding and maintainers' standards (gnu-standards, one Info node
each), all labelled accept by the same rule. (mypy's line-count report was dropped: it
printed four lines.)

``first-contact-3`` (issue 24's third unseen split) was generated while another engineer
tuned the lint, and was never linted by the person who built it (the script prints line
counts only). Its tool families appear in no split before it: mccabe (blocks and
``--dot``), xenon, astpretty, findimports (imports, ``--dot``, ``--names``), grimp,
modulegraph, cohesion, pmccabe, GNU complexity, cxref, idutils (mkid, lid), gcov,
dwarves (pfunct, pglobal), GNU as listings (``-alh``, ``-adhln``), xgettext, Go's x/tools
(callgraph, digraph, ssadump), YARD (list, stats, graph), phpdbg and opcache's opcode
dumps, ocamlc (``-dparsetree``, ``-dtypedtree``, ``-dlambda``, ``-i``), erlc (``-S``,
``+to_core``), Guile (disassembler, Tree-IL), espree, prettier's debug printers,
browserify ``--deps``, webpack's ``--json`` stats, swc and typhonjs-escomplex; over
CPython 3.11's standard library, Django 5.2.8 and trio 0.31.0 (sdists), libpng's, expat's,
liblzma's and libidn2's examples, Go 1.19's standard library, Ruby 3.1's standard
library, composer/semver and nikic/fast-route (Debian's php packages), OCaml 4.13's,
Erlang/OTP 25's and Guile 3.0's own libraries, express, commander and lodash. Its tools
live apart ($WILD/venv3, $WILD/node3; Debian's pmccabe, complexity, cxref, id-utils,
dwarves, gettext, golang-golang-x-tools, yard, php8.2-phpdbg, php8.2-opcache, ocaml-nox,
erlang-src, guile-3.0), so the trees the earlier splits print are unchanged. Accepts:
Django's design philosophies, internals and contributing documents, pytest's
explanation and policy pages, trio's design and contributing documents, and the Linux
kernel's process and core-API design documents (linux-doc 6.1).

The rule, fixed before anything was generated: a reject is real tool output mechanically
derived from code structure, or code in bulk (compiled, minified, annotated), given the
D-008 family it is closest to (a complexity or cohesion report, a string table with
file:line references or an export listing is a symbol table; an import or call listing
a call graph; DOT, digraph or module records a graph dump; ASTs, token streams, Core
Erlang, Tree-IL and pretty-printer documents parse trees; bytecode, SSA, opcode dumps,
assembler listings and coverage-annotated source bulk source). An accept is a real
design, process, policy or rationale document whose decision is carried by prose; it may
have code snippets, config, shell commands or a short hand-written listing. Left out as
borderline: API references, changelogs and deprecation timelines, lists of mailing lists
or talks, step-by-step release runbooks, documents mostly of pasted tool output, plain
diagnostics and test logs (so godex, which printed nothing, and a ``browserify --list``
file list were dropped).

Commands use $WILD (/work/cache/ingest-corpus: a venv, an npm prefix, the sdists),
$PYLIB (CPython 3.11's standard library), $GOROOT and $TMP. Each artifact is wrapped as
``bench/ingest_lint_corpus.py`` wraps its tools (a short note, a fence or none, chosen
by the name's hash). The script prints only line counts: the first-contact files were
not read while the model was tuned.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.ingest_lint_corpus import (  # noqa: E402
    OUT,
    Tool,
    _manifest_rows,
    copy_accept,
    ensure_npm,
    ensure_venv,
    generate,
    write_manifest,
)

WILD = Path(os.environ.get("MISHKAN_WILD_CACHE", "/work/cache/ingest-corpus"))
PYTHON = "/root/.pyenv/versions/3.11.7/bin/python3.11"
ENV = {
    "WILD": str(WILD),
    "PYLIB": "/root/.pyenv/versions/3.11.7/lib/python3.11",
    "GOROOT": "/usr/lib/go-1.19",
}
LZMA = "/usr/share/doc/liblzma-dev/examples"
EXPAT = "/usr/share/doc/libexpat1-dev/examples"
IDN = "/usr/share/doc/libidn2-dev/examples"
PNG = "/usr/share/doc/libpng-dev/examples"
XML = "/usr/share/mime/packages/freedesktop.org.xml"
_PNG = (  # a 64x64 RGB image written with zlib alone, for pngtest to read
    f"{PYTHON} -c \"import zlib,struct; c=lambda t,d: struct.pack('>I',len(d))+t+d+"
    "struct.pack('>I',zlib.crc32(t+d)); raw=b''.join(b'\\\\0'+bytes(v for x in range(64) "
    "for v in (x*4%256,y*4%256,(x^y)%256)) for y in range(64)); open('in.png','wb').write(b'\\\\x89PNG\\\\r\\\\n"
    "\\\\x1a\\\\n'+c(b'IHDR',struct.pack('>IIBBBBB',64,64,8,2,0,0,0))+c(b'IDAT',"
    "zlib.compress(raw))+c(b'IEND',b''))\""
)
NM = "$WILD/node/node_modules"
VPY = "$WILD/venv/bin/python"
ST = "shape-tune"
FC = "first-contact"
FC2 = "first-contact-2"
PL = "/usr/share/lua/5.1/pl"
DEV = "/work/i24/.venv/bin"
FC3 = "first-contact-3"
V3 = "$WILD/venv3/bin"
N3 = "$WILD/node3/node_modules"
DJ = "$WILD/src/django-5.2.8"
TRIO = "$WILD/src/trio-0.31.0"

# The workloads the profilers and tracers run (CPython's standard library doing real
# work): the runner writes each to $TMP/<name>.py before a command runs.
WORKLOADS = {
    "w_stats": (
        "import statistics, fractions, random\n"
        "r = random.Random(1)\n"
        "xs = [fractions.Fraction(r.randint(1, 999), r.randint(1, 99)) for _ in range(400)]\n"
        "for _ in range(3):\n"
        "    statistics.median(xs); statistics.mean(xs); statistics.stdev(xs)\n"
    ),
    "w_calendar": (
        "import calendar\n"
        "for y in range(1990, 2030):\n"
        "    calendar.TextCalendar().formatyear(y); calendar.HTMLCalendar().formatyear(y)\n"
    ),
    "w_diff": (
        "import difflib, random\n"
        "r = random.Random(2)\n"
        "a = [str(r.randint(0, 50)) for _ in range(3000)]\n"
        "b = [x if r.random() < .9 else 'z' for x in a]\n"
        "for _ in range(4):\n"
        "    list(difflib.unified_diff(a, b)); difflib.SequenceMatcher(None, a, b).ratio()\n"
    ),
    "w_config": (
        "import configparser\n"
        "text = ''.join('[s%d]\\nk%d = v%d\\nother = %%(k%d)s\\n' % (i, i, i, i) for i in range(600))\n"
        "for _ in range(5):\n"
        "    c = configparser.ConfigParser(); c.read_string(text)\n"
        "    [dict(c[s]) for s in c.sections()]\n"
    ),
}
NARRATE = f"{PYTHON} bench/ingest_lint_wild.py --narrate"


# fmt: off
TOOLS: list[Tool] = [
    # ------------------------------------------------------------ shape-tune: C (liblzma)
    Tool("st-pahole-lzma-custom", "symbol-table", "pahole struct layouts", "c", ST,
         f"gcc -g -c -o $TMP/a.o {LZMA}/03_compress_custom.c && pahole $TMP/a.o",
         "Struct layouts behind the lzma options"),
    Tool("st-pahole-lzma-stream", "symbol-table", "pahole --expand_types", "c", ST,
         f"gcc -g -c -o $TMP/a.o {LZMA}/01_compress_easy.c && pahole -E -C lzma_stream $TMP/a.o",
         "lzma_stream, expanded"),
    Tool("st-gcc-ipa-cgraph-lzma", "call-graph", "gcc -fdump-ipa-cgraph", "c", ST,
         f"cd $TMP && gcc -O2 -c -fdump-ipa-cgraph -o a.o {LZMA}/02_decompress.c && cat $TMP/*cgraph",
         "Call graph of the decompress example"),
    Tool("st-gcc-ipa-inline-lzma", "call-graph", "gcc -fdump-ipa-inline", "c", ST,
         f"cd $TMP && gcc -O2 -c -fdump-ipa-inline -o a.o {LZMA}/04_compress_easy_mt.c && cat $TMP/*inline",
         "Inlining decisions, multithreaded example"),
    Tool("st-gcc-optimized-lzma", "bulk-source", "gcc -fdump-tree-optimized", "c", ST,
         f"cd $TMP && gcc -O2 -c -fdump-tree-optimized -o a.o {LZMA}/01_compress_easy.c && cat $TMP/*optimized",
         "Optimised GIMPLE of compress_easy"),
    Tool("st-gcc-rtl-expand-lzma", "parse-tree", "gcc -fdump-rtl-expand", "c", ST,
         f"cd $TMP && gcc -O1 -c -fdump-rtl-expand -o a.o {LZMA}/03_compress_custom.c && cat $TMP/*expand",
         "RTL after expand"),
    Tool("st-gxx-lang-raw-lzma", "parse-tree", "g++ -fdump-lang-raw", "c", ST,
         f"cd $TMP && g++ -x c++ -c -fdump-lang-raw -o a.o {LZMA}/02_decompress.c && cat $TMP/*raw",
         "The C++ front end's tree of decompress.c"),
    Tool("st-objdump-dwarf-lzma", "symbol-table", "objdump --dwarf=info", "c", ST,
         f"gcc -g -c -o $TMP/a.o {LZMA}/04_compress_easy_mt.c && objdump --dwarf=info $TMP/a.o",
         "Debug info of the mt example"),
    Tool("st-objdump-dwarf-lines-lzma", "symbol-table", "objdump --dwarf=decodedline", "c", ST,
         f"gcc -g -c -o $TMP/a.o {LZMA}/02_decompress.c && objdump --dwarf=decodedline $TMP/a.o",
         "Line table of decompress"),
    Tool("st-bison-report-calc", "parse-tree", "bison --report=all", "c", ST,
         "cd $TMP && cp /usr/share/doc/bison/examples/c/calc/calc.y . && bison --report=all -o calc.c calc.y; cat calc.output",
         "The calc grammar's automaton"),
    Tool("st-bison-report-bistromathic", "parse-tree", "bison --report=all", "c", ST,
         "cd $TMP && cp /usr/share/doc/bison/examples/c/bistromathic/parse.y . && bison --report=all -o p.c parse.y; cat p.output",
         "Bistromathic parser states"),
    # ------------------------------------------------------------ shape-tune: npm, esbuild
    Tool("st-npm-ls-all", "call-graph", "npm ls --all", "javascript", ST,
         "cd $WILD/node && npm ls --all", "Dependency tree of the tools prefix", 200, fence="none"),
    Tool("st-npm-explain", "call-graph", "npm explain", "javascript", ST,
         "cd $WILD/node && npm explain debug qs body-parser send mime-types",
         "Why these packages are installed", 200, fence="text"),
    Tool("st-npm-ls-json", "call-graph", "npm ls --all --json", "javascript", ST,
         "cd $WILD/node && npm ls --all --json commander express", "npm ls as JSON", 200),
    Tool("st-esbuild-minify-commander", "bulk-source", "esbuild --minify", "javascript", ST,
         f"{NM}/.bin/esbuild --minify {NM}/commander/lib/command.js | fold -w 900",
         "commander's Command, minified"),
    Tool("st-esbuild-bundle-commander", "bulk-source", "esbuild --bundle --minify", "javascript", ST,
         f"{NM}/.bin/esbuild --bundle --minify --platform=node {NM}/commander/index.js | head -c 24000",
         "commander bundled"),
    # ------------------------------------------------------------ shape-tune: Python
    Tool("st-pyflowchart-fractions", "graph-dump", "pyflowchart (flowchart.js DSL)", "python", ST,
         f"{VPY} -m pyflowchart $PYLIB/fractions.py -f Fraction.limit_denominator",
         "Flowchart of limit_denominator"),
    Tool("st-pyflowchart-calendar", "graph-dump", "pyflowchart (flowchart.js DSL)", "python", ST,
         f"{VPY} -m pyflowchart $PYLIB/calendar.py -f TextCalendar.formatmonth",
         "Flowchart of formatmonth", fence="none"),
    Tool("st-narration-trace-statistics", "call-graph", "call narration from trace --trackcalls",
         "python", ST, f"{PYTHON} -m trace --trackcalls $TMP/w_stats.py | {NARRATE}",
         "How statistics.median gets its answer", 60, fence="none"),
    Tool("st-narration-trace-calendar", "call-graph", "call narration from trace --trackcalls",
         "python", ST, f"{PYTHON} -m trace --trackcalls $TMP/w_calendar.py | {NARRATE}",
         "What formatyear calls, in order", 60, fence="none"),
    Tool("st-pipdeptree", "call-graph", "pipdeptree", "python", ST,
         "$WILD/venv/bin/pipdeptree --python $WILD/venv/bin/python", "Installed tree"),
    Tool("st-pipdeptree-reverse", "call-graph", "pipdeptree --reverse", "python", ST,
         "$WILD/venv/bin/pipdeptree --python $WILD/venv/bin/python --reverse", "Who needs what"),
    Tool("st-importtime-statistics", "call-graph", "python -X importtime", "python", ST,
         f"{PYTHON} -X importtime -c 'import statistics, calendar, fractions, json' 2>&1",
         "Import tree and cost"),
    Tool("st-cprofile-callees", "call-graph", "cProfile/pstats print_callees", "python", ST,
         f"{PYTHON} -c \"import cProfile,pstats; cProfile.run(open('$TMP/w_stats.py').read(), "
         "'$TMP/p'); pstats.Stats('$TMP/p').sort_stats('cumulative').print_callees(25)\"",
         "Who calls what under median()"),
    Tool("st-cprofile-stats", "call-graph", "cProfile/pstats print_stats", "python", ST,
         f"{PYTHON} -m cProfile -s tottime $TMP/w_calendar.py", "Profile of formatyear over 40 years",
         80),
    # ------------------------------------------------------------ shape-tune: Go, Java
    Tool("st-go-compile-s-list", "bulk-source", "go tool compile -S", "go", ST,
         "cd $TMP && go tool compile -S -p container/list -o l.o $GOROOT/src/container/list/list.go",
         "Assembly of container/list"),
    Tool("st-go-objdump-strings", "bulk-source", "go tool objdump", "go", ST,
         "cd $TMP && printf 'package main\\nimport (\"fmt\";\"strings\")\\nfunc main(){ "
         "fmt.Println(strings.Fields(strings.Repeat(\"a b \", 9))) }\\n' > m.go && "
         "GOFLAGS=-mod=mod GO111MODULE=off go build -o m m.go && go tool objdump -s 'main\\.main' m",
         "objdump of a tiny main"),
    Tool("st-javac-xprint-arraydeque", "bulk-source", "javac -Xprint", "java", ST,
         "javac -Xprint java.util.ArrayDeque", "ArrayDeque's declarations"),
    Tool("st-javac-xprint-reentrantlock", "bulk-source", "javac -Xprint", "java", ST,
         "javac -Xprint java.util.concurrent.locks.ReentrantLock", "ReentrantLock, as javac sees it"),
    # ------------------------------------------------------------ first-contact: valgrind, gprof, gdb
    Tool("fc-callgrind-tree-outline", "call-graph", "callgrind_annotate --tree=caller", "c", FC,
         f"cd $TMP && gcc -g -O1 -o o {EXPAT}/outline.c -lexpat && valgrind --tool=callgrind "
         f"--callgrind-out-file=cg.out ./o < {XML} >/dev/null 2>&1; callgrind_annotate --tree=caller cg.out",
         "Callgrind on expat's outline"),
    Tool("fc-callgrind-inclusive-elements", "call-graph", "callgrind_annotate --inclusive=yes", "c",
         FC,
         f"cd $TMP && gcc -g -O1 -o e {EXPAT}/elements.c -lexpat && valgrind --tool=callgrind "
         f"--callgrind-out-file=cg.out ./e < {XML} >/dev/null 2>&1; "
         "callgrind_annotate --inclusive=yes cg.out",
         "Inclusive costs, expat elements"),
    Tool("fc-massif-outline", "call-graph", "valgrind massif + ms_print", "c", FC,
         f"cd $TMP && gcc -g -O1 -o o {EXPAT}/outline.c -lexpat && valgrind --tool=massif "
         f"--massif-out-file=ms.out ./o < {XML} >/dev/null 2>&1; ms_print ms.out",
         "Heap profile of outline"),
    Tool("fc-cachegrind-lookup", "bulk-source", "cachegrind + cg_annotate", "c", FC,
         f"cd $TMP && gcc -g -O1 -o l {IDN}/lookup.c -lidn2 && printf 'example.com\\nbücher.de\\n' | "
         "valgrind --tool=cachegrind --cachegrind-out-file=cg.out ./l >/dev/null 2>&1; "
         f"cg_annotate --auto=yes cg.out",
         "Cachegrind of the idn2 lookup example"),
    Tool("fc-gprof-pngtest", "call-graph", "gprof -b (flat profile and call graph)", "c", FC,
         f"cd $TMP && {_PNG} && gcc -pg -g -O0 -o p {PNG}/pngtest.c -lpng -lz -lm && "
         "for i in 1 2 3 4 5 6 7 8; do ./p in.png out.png >/dev/null; done && gprof -b ./p gmon.out",
         "gprof of pngtest"),
    Tool("fc-gprof-graph-pngtest", "call-graph", "gprof -q (call graph)", "c", FC,
         f"cd $TMP && {_PNG} && gcc -pg -g -O0 -o p {PNG}/pngtest.c -lpng -lz -lm && "
         "./p in.png out.png >/dev/null && gprof -q -b -z ./p gmon.out",
         "gprof call graph of pngtest"),
    Tool("fc-gdb-info-functions-png", "symbol-table", "gdb info functions", "c", FC,
         f"cd $TMP && gcc -g -O0 -o p {PNG}/pngtest.c -lpng -lz -lm && gdb -batch -ex 'info functions png' ./p",
         "Functions gdb knows in pngtest"),
    Tool("fc-gdb-info-types-png", "symbol-table", "gdb info types", "c", FC,
         f"cd $TMP && gcc -g -O0 -o p {PNG}/pngtest.c -lpng -lz -lm && gdb -batch -ex 'info types' ./p",
         "Types in pngtest"),
    Tool("fc-gdb-ptype-png", "symbol-table", "gdb ptype", "c", FC,
         f"cd $TMP && gcc -g -O0 -o p {PNG}/pngtest.c -lpng -lz -lm && gdb -batch "
         "-ex 'ptype struct png_color_struct' -ex 'ptype png_time' -ex 'ptype png_text' "
         "-ex 'ptype png_sPLT_t' -ex 'ptype struct user_chunk_data' -ex 'ptype png_unknown_chunk' ./p",
         "Struct types, pngtest"),
    Tool("fc-gdb-disassemble-lookup", "bulk-source", "gdb disassemble /s", "c", FC,
         f"cd $TMP && gcc -g -O1 -o l {IDN}/lookup.c -lidn2 && gdb -batch -ex 'disassemble /s main' ./l",
         "main, disassembled with source"),
    # ------------------------------------------------------------ first-contact: LLVM tools
    Tool("fc-llvm-dwarfdump-png", "symbol-table", "llvm-dwarfdump --debug-info", "c", FC,
         f"gcc -g -c -o $TMP/p.o {PNG}/pngtest.c && llvm-dwarfdump --debug-info $TMP/p.o",
         "DWARF of pngtest"),
    Tool("fc-llvm-dwarfdump-lines-expat", "symbol-table", "llvm-dwarfdump --debug-line", "c", FC,
         f"gcc -g -c -o $TMP/o.o {EXPAT}/outline.c && llvm-dwarfdump --debug-line $TMP/o.o",
         "Line program of outline"),
    Tool("fc-llvm-readobj-png", "symbol-table", "llvm-readobj --symbols", "c", FC,
         f"gcc -g -O1 -c -o $TMP/p.o {PNG}/pngtest.c && llvm-readobj --symbols $TMP/p.o",
         "Symbols of pngtest.o"),
    Tool("fc-llvm-objdump-idn", "bulk-source", "llvm-objdump -d", "c", FC,
         f"gcc -O2 -c -o $TMP/r.o {IDN}/register.c && llvm-objdump -d --no-show-raw-insn $TMP/r.o",
         "register.c, disassembled"),
    Tool("fc-llvm-nm-png", "symbol-table", "llvm-nm -S", "c", FC,
         f"gcc -O1 -c -o $TMP/p.o {PNG}/pngtest.c && llvm-nm -S --size-sort $TMP/p.o",
         "Symbol sizes in pngtest.o"),
    # ------------------------------------------------------------ first-contact: V8, minifiers
    Tool("fc-v8-bytecode-express", "bulk-source", "node --print-bytecode", "javascript", FC,
         f"node --print-bytecode --print-bytecode-filter=createApplication -e "
         f"\"require('{NM}/express')()\"",
         "Ignition bytecode of createApplication"),
    Tool("fc-v8-bytecode-lodash", "bulk-source", "node --print-bytecode", "javascript", FC,
         f"node --print-bytecode --print-bytecode-filter=baseFlatten -e "
         f"\"const _=require('{NM}/lodash'); _.flattenDeep([[1,[2,[3]]],[4]])\"",
         "baseFlatten's bytecode"),
    Tool("fc-v8-cpuprofile-lodash", "graph-dump", "node --cpu-prof (.cpuprofile JSON)", "javascript",
         FC,
         f"cd $TMP && node --cpu-prof --cpu-prof-dir=$TMP -e \"const _=require('{NM}/lodash'); "
         "let s=0; for (let i=0;i<20000;i++) s+=_.sortBy(_.range(50).map(x=>(x*7919)%101)).length\" && "
         f"{PYTHON} -m json.tool $TMP/*.cpuprofile",
         "CPU profile of sortBy", 220),
    Tool("fc-v8-prof-process-express", "call-graph", "node --prof + --prof-process", "javascript",
         FC,
         f"cd $TMP && node --prof -e \"const _=require('{NM}/lodash'); let s=0; "
         "for (let i=0;i<30000;i++) s+=_.uniq(_.shuffle(_.range(60))).length\" && "
         "node --prof-process $TMP/isolate*.log 2>/dev/null",
         "Ticks of uniq/shuffle", 200),
    Tool("fc-terser-express-router", "bulk-source", "terser -c -m", "javascript", FC,
         f"{NM}/.bin/terser {NM}/express/lib/router/index.js -c -m --format max_line_len=900",
         "express router, minified"),
    Tool("fc-terser-lodash-template", "bulk-source", "terser -c -m", "javascript", FC,
         f"{NM}/.bin/terser {NM}/lodash/template.js -c -m", "lodash template, minified"),
    Tool("fc-uglify-lodash-debounce", "bulk-source", "uglify-js -c -m", "javascript", FC,
         f"{NM}/.bin/uglifyjs {NM}/lodash/debounce.js -c -m", "debounce, uglified"),
    Tool("fc-uglify-ast-express-view", "parse-tree", "uglify-js -o spidermonkey (AST JSON)",
         "javascript", FC,
         f"{NM}/.bin/uglifyjs {NM}/express/lib/view.js -o spidermonkey | {PYTHON} -m json.tool",
         "express view.js as a SpiderMonkey AST", 220),
    # ------------------------------------------------------------ first-contact: SQLite
    Tool("fc-sqlite-explain", "bulk-source", "sqlite3 EXPLAIN (VDBE program)", "sql", FC,
         "sqlite3 :memory: 'create table t(a integer primary key, b text, c real); "
         "create index tb on t(b); create table u(a, d); "
         "explain select t.b, sum(c) from t join u on u.a=t.a where b like \"x%\" group by t.b order by 2 desc;'",
         "What SQLite compiles the report query to"),
    Tool("fc-sqlite-explain-plan", "parse-tree", "sqlite3 EXPLAIN QUERY PLAN", "sql", FC,
         "sqlite3 :memory: 'create table t(a integer primary key, b text, c real); create index tb on t(b); "
         "create table u(a, d); create table v(d primary key, e); "
         "explain query plan select * from t join u on u.a=t.a left join v on v.d=u.d "
         "where b in (select e from v where e>3) union all select a, b, c, 1, 2, 3, 4 from t "
         "where c > (select max(c) from t) order by 1;'",
         "Query plan of the union"),
    # ------------------------------------------------------------ first-contact: Python profilers, linters
    Tool("fc-pyspy-raw-difflib", "call-graph", "py-spy record --format raw", "python", FC,
         f"$WILD/venv/bin/py-spy record -r 250 -f raw -o $TMP/out.txt -- {PYTHON} $TMP/w_diff.py "
         ">/dev/null 2>&1; cat $TMP/out.txt",
         "py-spy samples of unified_diff"),
    Tool("fc-pyinstrument-difflib", "call-graph", "pyinstrument text", "python", FC,
         f"{VPY} -m pyinstrument -r text --show-all $TMP/w_diff.py",
         "Where the time goes in SequenceMatcher"),
    Tool("fc-pyinstrument-configparser", "call-graph", "pyinstrument text", "python", FC,
         f"{VPY} -m pyinstrument -r text $TMP/w_config.py", "ConfigParser under pyinstrument"),
    Tool("fc-yappi-configparser", "call-graph", "yappi func stats", "python", FC,
         f"{VPY} -c \"import yappi; yappi.start(); exec(open('$TMP/w_config.py').read()); yappi.stop(); "
         "yappi.get_func_stats().print_all()\"",
         "yappi on configparser"),
    Tool("fc-lizard-difflib", "symbol-table", "lizard", "python", FC,
         "$WILD/venv/bin/lizard $PYLIB/difflib.py", "Complexity of difflib"),
    Tool("fc-lizard-expat-c", "symbol-table", "lizard", "c", FC,
         f"$WILD/venv/bin/lizard {EXPAT}/outline.c {EXPAT}/elements.c {PNG}/pngtest.c",
         "Function table of the C examples"),
    Tool("fc-vulture-ipaddress", "symbol-table", "vulture", "python", FC,
         "$WILD/venv/bin/vulture --min-confidence 0 $PYLIB/ipaddress.py", "Unused code in ipaddress"),
    Tool("fc-vulture-email", "symbol-table", "vulture", "python", FC,
         "$WILD/venv/bin/vulture $PYLIB/email/", "Dead code candidates, email package"),
    Tool("fc-code2flow-json-heapq", "graph-dump", "code2flow JSON", "python", FC,
         f"$WILD/venv/bin/code2flow $PYLIB/heapq.py --output $TMP/o.json --quiet && "
         f"{PYTHON} -m json.tool $TMP/o.json",
         "code2flow graph of heapq", 220),
    Tool("fc-code2flow-dot-configparser", "graph-dump", "code2flow DOT", "python", FC,
         "$WILD/venv/bin/code2flow $PYLIB/configparser.py --output $TMP/o.gv --quiet && cat $TMP/o.gv",
         "Call graph of configparser"),
    Tool("fc-uv-pip-tree", "call-graph", "uv pip tree", "python", FC,
         "$WILD/venv/bin/uv pip tree --python $WILD/venv/bin/python", "Package tree from uv"),
    # ------------------------------------------------------------ first-contact-2 (generated after
    # the model was frozen: Lua, Pygments, pytest, ruff, GNU ld, cpp, gcc's -aux-info and
    # -fstack-usage, mypy's reports, jdeprscan, cargo; SQLite's and GNU's documents)
    Tool("f2-luac-list-stringx", "bulk-source", "luac -l -l (Lua bytecode)", "lua", FC2,
         f"cd $TMP && luac5.4 -l -l -p {PL}/stringx.lua", "Bytecode of penlight's stringx"),
    Tool("f2-luac-list-list", "bulk-source", "luac -l (Lua bytecode)", "lua", FC2,
         f"cd $TMP && luac5.4 -l -p {PL}/List.lua", "List.lua compiled"),
    Tool("f2-luac-list-tablex", "bulk-source", "luac -l -l (Lua bytecode)", "lua", FC2,
         f"cd $TMP && luac5.4 -l -l -p {PL}/tablex.lua", "tablex bytecode"),
    Tool("f2-pygments-raw-heapq", "parse-tree", "pygmentize -f raw (token stream)", "python", FC2,
         f"{DEV}/pygmentize -f raw -l python $PYLIB/heapq.py", "heapq's tokens"),
    Tool("f2-pygments-raw-lua", "parse-tree", "pygmentize -f raw (token stream)", "lua", FC2,
         f"{DEV}/pygmentize -f raw -l lua {PL}/Set.lua", "Tokens of Set.lua"),
    Tool("f2-pygments-tokens-c", "parse-tree", "pygmentize -f tokens", "c", FC2,
         f"{DEV}/pygmentize -f tokens -l c /usr/share/doc/liblzma-dev/examples/02_decompress.c",
         "Token kinds in decompress.c"),
    Tool("f2-pytest-collect-heapq", "symbol-table", "pytest --collect-only -q", "python", FC2,
         f"cd $TMP && {DEV}/python -m pytest --collect-only -q -p no:cacheprovider $PYLIB/test/test_heapq.py $PYLIB/test/test_bisect.py",
         "Test ids of heapq and bisect"),
    Tool("f2-pytest-collect-tree", "symbol-table", "pytest --collect-only (tree)", "python", FC2,
         f"cd $TMP && {DEV}/python -m pytest --collect-only -p no:cacheprovider $PYLIB/test/test_textwrap.py",
         "How textwrap's tests are organised"),
    Tool("f2-ruff-graph-email", "call-graph", "ruff analyze graph (JSON)", "python", FC2,
         f"cd $PYLIB && {DEV}/ruff analyze graph --isolated email", "Import graph of email"),
    Tool("f2-ruff-graph-json-dependents", "call-graph", "ruff analyze graph --direction dependents",
         "python", FC2,
         f"cd $PYLIB && {DEV}/ruff analyze graph --isolated --direction dependents asyncio",
         "Who imports what in asyncio"),
    Tool("f2-gcc-aux-info-png", "symbol-table", "gcc -aux-info (prototypes)", "c", FC2,
         f"cd $TMP && gcc -c -aux-info protos.txt -o p.o {PNG}/pngtest.c && cat protos.txt",
         "Every prototype pngtest sees"),
    Tool("f2-gcc-stack-usage-png", "symbol-table", "gcc -fstack-usage (.su)", "c", FC2,
         f"cd $TMP && gcc -O1 -fstack-usage -c -o p.o {PNG}/pngtest.c && cat p.su",
         "Stack usage per function"),
    Tool("f2-ld-map-png", "symbol-table", "GNU ld -Map (link map)", "c", FC2,
         f"cd $TMP && gcc -O1 -o p {PNG}/pngtest.c -lpng -lz -lm -Wl,-Map=p.map && cat p.map",
         "Link map of pngtest", 200),
    Tool("f2-cpp-dm-png", "symbol-table", "cpp -dM (macro table)", "c", FC2,
         "echo '#include <png.h>' | cpp -dM - | grep PNG_ | sort", "PNG_ macros in scope"),
    Tool("f2-gcc-verbose-asm-idn", "bulk-source", "gcc -S -fverbose-asm", "c", FC2,
         f"cd $TMP && gcc -O1 -S -fverbose-asm -o - {IDN}/decode.c", "decode.c as assembly"),
    Tool("f2-mypy-any-exprs", "symbol-table", "mypy --any-exprs-report", "python", FC2,
         f"cd $TMP && cp -r $PYLIB/json jsonpkg && {DEV}/mypy --any-exprs-report $TMP/r "
         "jsonpkg >/dev/null 2>&1; cat $TMP/r/any-exprs.txt $TMP/r/types-of-anys.txt",
         "Where json's Anys are"),
    Tool("f2-jdeprscan-list", "symbol-table", "jdeprscan --list", "java", FC2,
         "jdeprscan --release 17 --list", "Deprecated APIs in Java 17"),
    Tool("f2-cargo-metadata", "graph-dump", "cargo metadata (JSON)", "rust", FC2,
         "cd $TMP && cargo new -q --lib demo && cd demo && printf 'pub mod a { pub fn f() {} }\\n' "
         ">> src/lib.rs && mkdir -p examples && echo 'fn main(){}' > examples/e.rs && "
         "cargo metadata --offline --format-version 1 | "
         f"{PYTHON} -m json.tool",
         "cargo's view of the crate"),
    # ------------------------------------------------------------ first-contact-3 (issue 24's
    # third unseen split: mccabe, xenon, astpretty, findimports, grimp, modulegraph, cohesion,
    # pmccabe, GNU complexity, cxref, idutils, gcov, dwarves, GNU as listings, xgettext, Go's
    # x/tools, YARD, phpdbg and opcache, OCaml, erlc, Guile, espree, prettier, browserify,
    # webpack, swc, escomplex; Django's, the Linux kernel's, pytest's and trio's documents)
    Tool("f3-mccabe-argparse", "symbol-table", "mccabe --min (complexity per block)", "python", FC3,
         f"{V3}/python -m mccabe --min 3 $PYLIB/argparse.py", "Complexity of argparse"),
    Tool("f3-mccabe-zipfile", "symbol-table", "mccabe --min (complexity per block)", "python", FC3,
         f"{V3}/python -m mccabe --min 1 $PYLIB/zipfile.py", "zipfile, block by block", 90),
    Tool("f3-mccabe-dot-shlex", "graph-dump", "mccabe --dot (flow graph)", "python", FC3,
         f"{V3}/python -m mccabe --dot --min 4 $PYLIB/shlex.py", "Flow graphs of shlex's hard parts", 220),
    Tool("f3-xenon-email", "symbol-table", "xenon (complexity thresholds)", "python", FC3,
         f"cd $PYLIB && {V3}/xenon --max-absolute A --max-modules A --max-average A email 2>&1",
         "Blocks of email over the threshold"),
    Tool("f3-xenon-django-db", "symbol-table", "xenon (complexity thresholds)", "python", FC3,
         f"cd {DJ} && {V3}/xenon --max-absolute B django/db/models/sql 2>&1",
         "Django's SQL compiler blocks ranked", 120),
    Tool("f3-astpretty-shlex", "parse-tree", "astpretty", "python", FC3,
         f"{V3}/astpretty $PYLIB/shlex.py", "shlex's tree", 260),
    Tool("f3-astpretty-colorsys", "parse-tree", "astpretty --no-show-offsets", "python", FC3,
         f"{V3}/astpretty --no-show-offsets $PYLIB/colorsys.py", "colorsys, parsed", 120),
    Tool("f3-astpretty-django-functional", "parse-tree", "astpretty --no-show-offsets", "python", FC3,
         f"{V3}/astpretty --no-show-offsets {DJ}/django/utils/functional.py",
         "django.utils.functional as a tree", 340),
    Tool("f3-findimports-email", "call-graph", "findimports (import list)", "python", FC3,
         f"cd $PYLIB && {V3}/findimports email", "What email's modules import"),
    Tool("f3-findimports-dot-json", "graph-dump", "findimports --dot", "python", FC3,
         f"cd $PYLIB && {V3}/findimports --dot json http", "Import graph of json and http", 90),
    Tool("f3-findimports-names-trio", "symbol-table", "findimports --names", "python", FC3,
         f"cd {TRIO}/src && {V3}/findimports --names trio/_core", "Names trio's core imports", 200),
    Tool("f3-grimp-django-core", "call-graph", "grimp import graph (edges)", "python", FC3,
         f"cd {DJ} && {V3}/python -c \"import grimp; g = grimp.build_graph('django', cache_dir=None)\n"
         "for m in sorted(g.modules):\n"
         "    if m.startswith('django.core'):\n"
         "        for d in sorted(g.find_modules_directly_imported_by(m)): print(m, '->', d)\"",
         "Who imports whom in django.core", 240, fence="none"),
    Tool("f3-grimp-chains-django", "call-graph", "grimp find_shortest_chains", "python", FC3,
         f"cd {DJ} && {V3}/python -c \"import grimp; g = grimp.build_graph('django', cache_dir=None)\n"
         "for c in sorted(g.find_shortest_chains('django.forms', 'django.db')): print(' -> '.join(c))\"",
         "How forms reaches the db layer", 120),
    Tool("f3-modulegraph-calendar", "call-graph", "modulegraph (module report)", "python", FC3,
         f"cd $TMP && {V3}/python -m modulegraph -q -m calendar textwrap", "calendar's module graph", 160),
    Tool("f3-modulegraph-dot", "graph-dump", "modulegraph --dot", "python", FC3,
         f"cd $TMP && {V3}/python -m modulegraph -q -g -m shlex", "modulegraph's DOT for shlex", 200),
    Tool("f3-cohesion-fractions", "symbol-table", "cohesion -v (class cohesion)", "python", FC3,
         f"{V3}/cohesion -v -f $PYLIB/fractions.py $PYLIB/textwrap.py", "Which methods use which attributes", 200),
    Tool("f3-cohesion-trio", "symbol-table", "cohesion (class cohesion)", "python", FC3,
         f"{V3}/cohesion -f {TRIO}/src/trio/_core/_run.py {TRIO}/src/trio/_core/_io_epoll.py",
         "Cohesion of trio's run loop classes"),
    # C
    Tool("f3-pmccabe-png", "symbol-table", "pmccabe -v", "c", FC3,
         f"pmccabe -v {PNG}/pngtest.c", "pngtest, function by function"),
    Tool("f3-pmccabe-lzma", "symbol-table", "pmccabe", "c", FC3,
         f"pmccabe {LZMA}/*.c {EXPAT}/*.c", "Complexity of the lzma and expat examples", fence="none"),
    Tool("f3-complexity-png", "symbol-table", "GNU complexity --histogram --score", "c", FC3,
         f"complexity --histogram --score --threshold=3 {PNG}/pngtest.c 2>/dev/null", "GNU complexity on pngtest"),
    Tool("f3-complexity-idn", "symbol-table", "GNU complexity --threshold", "c", FC3,
         f"complexity --threshold=1 {IDN}/*.c {LZMA}/*.c 2>/dev/null", "Scores of the idn and lzma examples"),
    Tool("f3-cxref-png", "call-graph", "cxref -xref-function -raw", "c", FC3,
         f"cd $TMP && cp {PNG}/pngtest.c . && cxref -xref-function -raw -CPP 'cpp -C -dD -dI' pngtest.c 2>/dev/null",
         "Who calls what in pngtest", 260),
    Tool("f3-cxref-expat", "symbol-table", "cxref -xref-all -raw", "c", FC3,
         f"cd $TMP && cp {EXPAT}/*.c . && cxref -xref-all -raw -CPP 'cpp -C -dD -dI' elements.c outline.c 2>/dev/null",
         "Cross reference of the expat examples", 200),
    Tool("f3-lid-expat", "symbol-table", "idutils mkid + lid -R grep", "c", FC3,
         f"cd $TMP && cp {EXPAT}/*.c {PNG}/pngtest.c . && mkid -o ID *.c && lid -f ID -R grep -r '^(XML_|png_(get|set)_)'",
         "Where each XML_/png_ name is used", 160),
    Tool("f3-lid-tokens", "symbol-table", "idutils lid (token index)", "c", FC3,
         f"cd $TMP && cp {LZMA}/*.c . && mkid -o ID *.c && lid -f ID", "Token index of the lzma examples", 200,
         fence="none"),
    Tool("f3-gcov-elements", "bulk-source", "gcov -b (annotated source)", "c", FC3,
         f"cd $TMP && cp {EXPAT}/elements.c . && gcc --coverage -c elements.c && gcc --coverage -o el elements.o -lexpat && ./el < {XML} > /dev/null; gcov -b -t elements.c 2>/dev/null",
         "Which lines of elements.c ran"),
    Tool("f3-gcov-png", "bulk-source", "gcov -t (annotated source)", "c", FC3,
         f"cd $TMP && {_PNG} && cp {PNG}/pngtest.c . && gcc --coverage -c pngtest.c && gcc --coverage -o pt pngtest.o -lpng -lz -lm && ./pt in.png out.png > /dev/null; gcov -t pngtest.c 2>/dev/null",
         "pngtest with hit counts", 320),
    Tool("f3-pfunct-png", "symbol-table", "dwarves pfunct -P (prototypes)", "c", FC3,
         f"gcc -g -O1 -c -o $TMP/p.o {PNG}/pngtest.c && pfunct -P $TMP/p.o", "Prototypes from pngtest's DWARF"),
    Tool("f3-pfunct-inline-png", "symbol-table", "dwarves pfunct --sizes, -i (inline expansions)", "c", FC3,
         f"gcc -g -O2 -c -o $TMP/p.o {PNG}/pngtest.c && pfunct --sizes $TMP/p.o && pfunct -i $TMP/p.o",
         "Function sizes and what got inlined", 220),
    Tool("f3-pglobal-png", "symbol-table", "dwarves pglobal -v", "c", FC3,
         f"gcc -g -c -o $TMP/p.o {PNG}/pngtest.c && pglobal -v $TMP/p.o && pglobal -f $TMP/p.o", "Globals of pngtest"),
    Tool("f3-as-listing-idn", "bulk-source", "GNU as -alh listing", "c", FC3,
         f"cd $TMP && gcc -O1 -g -c -Wa,-alh=l.lst -o a.o {IDN}/decode.c && cat l.lst", "decode.c with its assembly", 300),
    Tool("f3-as-listing-expat", "bulk-source", "GNU as -adhln listing", "c", FC3,
         f"cd $TMP && gcc -O2 -c -Wa,-adhln=l.lst -o a.o {EXPAT}/outline.c && cat l.lst", "outline.c, assembled"),
    Tool("f3-xgettext-argparse", "symbol-table", "xgettext .pot (file:line references)", "python", FC3,
         "cd $PYLIB && xgettext -L Python -o - argparse.py optparse.py getopt.py", "Translatable messages and where they are"),
    Tool("f3-xgettext-all-idn", "symbol-table", "xgettext -a .pot", "c", FC3,
         f"cd {IDN}/.. && xgettext -a -L C -o - --from-code=utf-8 examples/*.c", "Every string in the idn examples"),
    # Go (GOROOT's standard library, golang-golang-x-tools 0.5)
    Tool("f3-callgraph-csv", "call-graph", "x/tools callgraph -algo=static", "go", FC3,
         "cd $GOROOT/src && callgraph -algo=static -format '{{.Caller}} --> {{.Callee}}' encoding/csv 2>/dev/null | grep '^encoding/csv\\|csv\\.' | sort -u",
         "Static call graph of encoding/csv", 200),
    Tool("f3-callgraph-digraph-flag", "call-graph", "x/tools callgraph -format digraph", "go", FC3,
         "cd $GOROOT/src && callgraph -algo=static -format digraph flag 2>/dev/null | grep -E '^\"(\\(\\*?)?flag\\.' | sort -u",
         "flag's calls as digraph input", 160, fence="none"),
    Tool("f3-digraph-forward-template", "graph-dump", "x/tools digraph forward", "go", FC3,
         "cd $GOROOT/src && callgraph -algo=static -format digraph text/template 2>/dev/null | grep -E '^\"(\\(\\*?)?text/template\\.' | digraph forward '(*text/template.Template).Execute'",
         "What Template.Execute reaches"),
    Tool("f3-ssadump-csv", "bulk-source", "x/tools ssadump -build=F (SSA)", "go", FC3,
         "cd $GOROOT/src && ssadump -build=F encoding/csv 2>&1", "SSA form of encoding/csv", 320),
    Tool("f3-ssadump-sort", "bulk-source", "x/tools ssadump -build=F (SSA)", "go", FC3,
         "cd $GOROOT/src && ssadump -build=F container/ring 2>&1", "container/ring in SSA"),
    # Ruby (the standard library of ruby 3.1), YARD
    Tool("f3-yard-list-stdlib", "symbol-table", "yard list", "ruby", FC3,
         "cd $TMP && yard list -q --no-save /usr/lib/ruby/3.1.0/{ostruct,pstore,observer,forwardable,delegate}.rb 2>/dev/null",
         "Everything these five files define"),
    Tool("f3-yard-undoc-set", "symbol-table", "yard stats --list-undoc", "ruby", FC3,
         "cd $TMP && yard stats --list-undoc --no-save /usr/lib/ruby/3.1.0/set.rb /usr/lib/ruby/3.1.0/ostruct.rb /usr/lib/ruby/3.1.0/pstore.rb",
         "Undocumented objects"),
    Tool("f3-yard-graph-logger", "graph-dump", "yard graph (DOT)", "ruby", FC3,
         "cd $TMP && yard doc -q -n /usr/lib/ruby/3.1.0/logger.rb /usr/lib/ruby/3.1.0/logger/*.rb && yard graph --full --dependencies",
         "Class diagram of logger", 200),
    # PHP (composer/semver, nikic/fast-route as Debian ships them)
    Tool("f3-phpdbg-semver", "bulk-source", "phpdbg -p* (opcodes)", "php", FC3,
         "phpdbg -qrr -p* /usr/share/php/Composer/Semver/Comparator.php 2>&1", "Opcodes of Comparator", 260),
    Tool("f3-phpdbg-fastroute", "bulk-source", "phpdbg -p* (opcodes)", "php", FC3,
         "phpdbg -qrr -p* /usr/share/php/FastRoute/RouteParser/Std.php 2>&1", "FastRoute's parser, compiled"),
    Tool("f3-opcache-dump-semver", "bulk-source", "opcache.opt_debug_level (optimised opcodes)", "php", FC3,
         "php -d opcache.enable_cli=1 -d opcache.opt_debug_level=0x20000 -d opcache.file_cache_only=0 /usr/share/php/Composer/Semver/VersionParser.php 2>&1",
         "VersionParser after the optimiser", 300),
    Tool("f3-opcache-cfg-interval", "graph-dump", "opcache.opt_debug_level (CFG)", "php", FC3,
         "php -d opcache.enable_cli=1 -d opcache.opt_debug_level=0x400000 /usr/share/php/Composer/Semver/Intervals.php 2>&1",
         "Control-flow blocks of Intervals", 260),
    # OCaml (the standard library's sources, ocaml 4.13)
    Tool("f3-ocaml-parsetree-stack", "parse-tree", "ocamlc -dparsetree", "ocaml", FC3,
         "cd $TMP && cp /usr/lib/ocaml/stack.ml . && ocamlc -dparsetree -c stack.ml 2>&1", "Parse tree of Stack", 300),
    Tool("f3-ocaml-typedtree-queue", "parse-tree", "ocamlc -dtypedtree", "ocaml", FC3,
         "cd $TMP && cp /usr/lib/ocaml/queue.ml . && ocamlc -dtypedtree -c queue.ml 2>&1", "Queue, typed"),
    Tool("f3-ocaml-lambda-list", "bulk-source", "ocamlc -dlambda", "ocaml", FC3,
         "cd $TMP && cp /usr/lib/ocaml/option.ml . && ocamlc -dlambda -c option.ml 2>&1", "Option in the lambda IR", 220),
    Tool("f3-ocaml-interface-arg", "symbol-table", "ocamlc -i (inferred interface)", "ocaml", FC3,
         "cd $TMP && cp /usr/lib/ocaml/arg.ml /usr/lib/ocaml/buffer.ml . && ocamlc -i arg.ml buffer.ml 2>&1",
         "The signatures of Arg and Buffer"),
    # Erlang (stdlib's sources, erlang-src)
    Tool("f3-erlc-asm-queue", "bulk-source", "erlc -S (BEAM assembly)", "erlang", FC3,
         "cd $TMP && erlc -S /usr/lib/erlang/lib/stdlib-4.2/src/queue.erl && cat queue.S", "queue.erl as BEAM assembly", 320),
    Tool("f3-erlc-core-orddict", "parse-tree", "erlc +to_core (Core Erlang)", "erlang", FC3,
         "cd $TMP && erlc +to_core /usr/lib/erlang/lib/stdlib-4.2/src/orddict.erl && cat orddict.core", "orddict in Core Erlang"),
    # Guile (ice-9 modules of guile 3.0)
    Tool("f3-guile-disasm-q", "bulk-source", "guile (system vm disassembler)", "scheme", FC3,
         "guile -c '(use-modules (system vm disassembler)) (disassemble-file \"/usr/lib/x86_64-linux-gnu/guile/3.0/ccache/ice-9/q.go\")' 2>&1",
         "The compiled q module", 280),
    Tool("f3-guile-tree-il-q", "parse-tree", "guile compile #:to 'tree-il", "scheme", FC3,
         "guile -c '(use-modules (system base compile) (language tree-il) (ice-9 pretty-print)) (call-with-input-file \"/usr/share/guile/3.0/ice-9/q.scm\" (lambda (p) (let loop ((x (read p))) (unless (eof-object? x) (pretty-print (unparse-tree-il (compile x #:to (quote tree-il)))) (loop (read p))))))' 2>&1",
         "The q module in Tree-IL"),
    # JavaScript (express, lodash and commander of $WILD/node; tools in $WILD/node3)
    Tool("f3-espree-router", "parse-tree", "espree AST (JSON)", "javascript", FC3,
         f"cd {N3}/.. && node -e \"const fs=require('fs'),e=require('espree'); console.log(JSON.stringify(e.parse(fs.readFileSync('{NM}/express/lib/router/route.js','utf8'),{{ecmaVersion:'latest',loc:true}}),null,1))\"".replace("{NM}", NM),
         "express's Route, parsed", 300),
    Tool("f3-espree-tokens-commander", "parse-tree", "espree tokenize (JSON)", "javascript", FC3,
         f"cd {N3}/.. && node -e \"const fs=require('fs'),e=require('espree'); for (const t of e.tokenize(fs.readFileSync('{NM}/commander/lib/option.js','utf8'),{{ecmaVersion:'latest',loc:true}})) console.log(JSON.stringify(t))\"".replace("{NM}", NM),
         "Tokens of commander's Option", 220, fence="none"),
    Tool("f3-prettier-doc-express", "parse-tree", "prettier --debug-print-doc", "javascript", FC3,
         f"{N3}/.bin/prettier --debug-print-doc --stdin-filepath x.js < {NM}/express/lib/view.js",
         "prettier's Doc for view.js", 260),
    Tool("f3-prettier-ast-lodash", "parse-tree", "prettier --debug-print-ast", "javascript", FC3,
         f"{N3}/.bin/prettier --debug-print-ast --stdin-filepath x.js < {NM}/lodash/chunk.js | {PYTHON} -m json.tool",
         "lodash's chunk, as prettier sees it"),
    Tool("f3-browserify-deps-express", "graph-dump", "browserify --deps (JSON)", "javascript", FC3,
         f"cd {NM} && {N3}/.bin/browserify --node --deps --ignore-missing express/lib/router/index.js | {PYTHON} -c \"import json,sys; d=json.load(sys.stdin); [r.pop('source', None) for r in d]; print(json.dumps(d, indent=1))\"",
         "Module records of the router", 200),
    Tool("f3-webpack-stats-commander", "graph-dump", "webpack --json (stats)", "javascript", FC3,
         f"cd $TMP && {N3}/.bin/webpack --entry {NM}/commander/index.js --mode none --target node -o $TMP/out --json 2>/dev/null | {PYTHON} -c \"import json,sys; s=json.load(sys.stdin); [m.pop('source',None) for m in s.get('modules',[])]; print(json.dumps({{'modules': s['modules']}}, indent=1))\"",
         "webpack's module graph for commander", 320),
    Tool("f3-swc-ast-lodash", "parse-tree", "swc parseSync (AST JSON)", "javascript", FC3,
         f"cd {N3}/.. && node -e \"const fs=require('fs'),s=require('@swc/core'); console.log(JSON.stringify(s.parseSync(fs.readFileSync('{NM}/lodash/debounce.js','utf8'),{{syntax:'ecmascript'}}),null,1))\"".replace("{NM}", NM),
         "debounce in swc's AST", 280),
    Tool("f3-swc-minify-express", "bulk-source", "swc minify", "javascript", FC3,
         f"cd {N3}/.. && node -e \"const fs=require('fs'),s=require('@swc/core'); console.log(s.minifySync(fs.readFileSync('{NM}/express/lib/response.js','utf8'),{{compress:true,mangle:true}}).code)\" | fold -w 700".replace("{NM}", NM),
         "response.js after swc"),
    Tool("f3-escomplex-router", "symbol-table", "typhonjs-escomplex (report JSON)", "javascript", FC3,
         f"cd {N3}/.. && node -e \"const fs=require('fs'),x=require('typhonjs-escomplex'); console.log(JSON.stringify(x.analyzeModule(fs.readFileSync('{NM}/express/lib/router/index.js','utf8')),null,1))\"".replace("{NM}", NM),
         "escomplex on the router", 300),
]
# fmt: on

SHAPE_TUNE_ACCEPT = [
    *sorted(str(p) for p in Path("/usr/share/doc/git-doc/technical").glob("*.txt")),
    *sorted(
        str(p) for p in Path("/usr/share/doc/developers-reference/docs/_sources").glob("*.txt")
    ),
    *(
        f"/usr/share/doc/debian-policy/{name}.txt.gz"
        for name in (
            "autopkgtest",
            "debconf_specification",
            "menu-policy",
            "perl-policy",
            "upgrading-checklist",
            "copyright-format-1.0",
        )
    ),
]
_PERL_PODS = (
    "perlpolicy",
    "perlgov",
    "perlhack",
    "perldeprecation",
    "perlexperiment",
    "perlsec",
    "perlsecpolicy",
    "perlhacktips",
    "perlsource",
    "perlinterp",
    "perlgit",
    "perlstyle",
    "perlport",
    "perlclib",
    "perlhacktut",
)


SQLITE_PAGES = (
    "arch",
    "atomiccommit",
    "lockingv3",
    "wal",
    "howtocorrupt",
    "isolation",
    "tempfiles",
    "whentouse",
    "different",
    "quirks",
    "testing",
    "omitted",
    "asyncvfs",
    "optoverview",
    "queryplanner",
    "fileformat2",
    "lang_transaction",
    "cintro",
)


def first_contact_2_accept() -> list[str]:
    """SQLite's design documents (sqlite3-doc, HTML made text) and the GNU coding and
    maintainers' standards (gnu-standards, one Info node each)."""
    found = [f"/usr/share/doc/sqlite3/{name}.html" for name in SQLITE_PAGES]
    for manual in ("standards", "maintain"):
        found += [f"/usr/share/info/{manual}.info.gz#{k}" for k in range(2, 80, 5)]
    return found


_DJANGO_DOCS = (
    "misc/api-stability",
    "misc/design-philosophies",
    "misc/distributions",
    "internals/git",
    "internals/organization",
    "internals/release-process",
    "internals/security",
    "internals/contributing/accessibility",
    "internals/contributing/bugs-and-features",
    "internals/contributing/committing-code",
    "internals/contributing/localizing",
    "internals/contributing/new-contributors",
    "internals/contributing/triaging-tickets",
    "internals/contributing/writing-documentation",
    "internals/contributing/writing-code/coding-style",
    "internals/contributing/writing-code/javascript",
    "internals/contributing/writing-code/submitting-patches",
    "internals/contributing/writing-code/working-with-git",
)
_PYTEST_DOCS = (
    "explanation/anatomy",
    "explanation/ci",
    "explanation/types",
    "explanation/flaky",
    "explanation/fixtures",
    "explanation/pythonpath",
    "explanation/goodpractices",
    "backwards-compatibility",
    "historical-notes",
    "funcarg_compare",
)
_TRIO_DOCS = ("design", "contributing", "code-of-conduct", "releasing")
_KERNEL_DOCS = (
    *(
        f"process/{name}"
        for name in (
            "1.Intro",
            "2.Process",
            "3.Early-stage",
            "4.Coding",
            "5.Posting",
            "6.Followthrough",
            "7.AdvancedTopics",
            "8.Conclusion",
            "adding-syscalls",
            "botching-up-ioctls",
            "code-of-conduct-interpretation",
            "coding-style",
            "deprecated",
            "embargoed-hardware-issues",
            "handling-regressions",
            "howto",
            "license-rules",
            "maintainer-netdev",
            "maintainer-tip",
            "management-style",
            "programming-language",
            "researcher-guidelines",
            "stable-api-nonsense",
            "stable-kernel-rules",
            "submit-checklist",
            "submitting-patches",
            "volatile-considered-harmful",
        )
    ),
    "core-api/circular-buffers",
    "core-api/unaligned-memory-access",
    "core-api/memory-allocation",
    "core-api/kref",
)


def first_contact_3_accept() -> list[tuple[str, str]]:
    """(organisation, source): Django's design philosophies, internals and contributing
    documents (the Django sdist), pytest's explanation and policy pages (its sdist),
    trio's design and contributing documents (its sdist) and the Linux kernel's process
    and core-API design documents (Debian's linux-doc)."""
    django = WILD / "src" / "django-5.2.8" / "docs"
    pytest = WILD / "src" / "pytest-8.4.2" / "doc" / "en"
    trio = WILD / "src" / "trio-0.31.0" / "docs" / "source"
    kernel = Path("/usr/share/doc/linux-doc/Documentation")
    return [
        *(("django", str(django / f"{name}.txt")) for name in _DJANGO_DOCS),
        *(("pytest", str(pytest / f"{name}.rst")) for name in _PYTEST_DOCS),
        *(("trio", str(trio / f"{name}.rst")) for name in _TRIO_DOCS),
        *(("kernel", str(kernel / f"{name}.rst.gz")) for name in _KERNEL_DOCS),
    ]


def f3_accept_name(org: str, source: str) -> str:
    """``f3-<organisation>-<document>.fixture`` (the document's name, dots and
    underscores made dashes)."""
    stem = Path(source.removesuffix(".gz")).stem.lower().replace(".", "-").replace("_", "-")
    return f"f3-{org}-{stem}.fixture"


def first_contact_accept() -> list[str]:
    found = [f"/usr/share/perl/5.36/pod/{name}.pod" for name in _PERL_PODS]
    for sdist, under in (
        ("pip-25.2", "docs/html/development"),
        ("setuptools-80.9.0", "docs/deprecated"),
        ("setuptools-80.9.0", "docs/development"),
        ("setuptools-80.9.0", "docs/userguide"),
    ):
        root = WILD / "src" / sdist / under
        found += sorted(str(p) for p in root.rglob("*.rst") if p.name != "index.rst")
    return found


class _Text:
    """HTML made markdown-ish text, as a person pasting a page would have it: headings
    as "#", paragraphs and list items as lines, <pre> as fences."""

    def __init__(self) -> None:
        from html.parser import HTMLParser

        out: list[str] = []
        state = {"pre": False, "skip": 0, "item": False}

        class Parser(HTMLParser):
            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                if tag in ("script", "style", "head"):
                    state["skip"] += 1
                elif tag in ("h1", "h2", "h3", "h4"):
                    out.append("\n\n" + "#" * int(tag[1]) + " ")
                elif tag == "pre":
                    state["pre"] = True
                    out.append("\n\n```\n")
                elif tag == "li":
                    state["item"] = True
                elif tag in ("p", "div", "br", "tr", "blockquote") and not state["item"]:
                    out.append("\n\n" if tag != "br" else "\n")

            def handle_endtag(self, tag: str) -> None:
                if tag in ("script", "style", "head"):
                    state["skip"] = max(0, state["skip"] - 1)
                elif tag == "pre":
                    state["pre"] = False
                    out.append("\n```\n\n")

            def handle_data(self, data: str) -> None:
                if state["skip"]:
                    return
                if state["pre"]:
                    out.append(data)
                    return
                if not data.strip():
                    if data and out and not out[-1].endswith((" ", "\n")):
                        out.append(" ")
                    return
                lead = " " if data[:1].isspace() else ""
                if state["item"]:  # the item's first words, after its bullet
                    state["item"] = False
                    lead = "\n\n- "
                out.append(lead + " ".join(data.split()) + (" " if data[-1:].isspace() else ""))

        self.parser = Parser()
        self.out = out

    def convert(self, html_text: str) -> str:
        self.parser.feed(html_text)
        lines = [line.rstrip() for line in "".join(self.out).split("\n")]
        kept: list[str] = []
        fenced = False
        for line in lines:
            if line.startswith("```"):
                fenced = not fenced
            if fenced or line.startswith("```"):
                kept.append(line)
            elif line.strip() or (kept and kept[-1].strip()):
                kept.append(line.strip())
        return _wrap("\n".join(kept))


def _wrap(text: str) -> str:
    """Long paragraph lines wrapped at 80 columns outside fences."""
    import textwrap

    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or len(line) <= 88 or line.startswith("#"):
            out.append(line)
        else:
            lead = "  " if line.startswith("- ") else ""
            out += textwrap.wrap(line, 80, subsequent_indent=lead)
    return "\n".join(out)


def _info_node(path: str, k: int) -> str:
    """The k-th node of an Info manual, its header dropped."""
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as handle:
        nodes = handle.read().split("\x1f\n")
    node = nodes[k] if k < len(nodes) else ""
    return node.split("\n", 1)[1] if "\n" in node else node


def _read(source: str) -> str:
    if "#" in source and ".info.gz#" in source:
        path, _, k = source.partition("#")
        return _info_node(path, int(k))
    if source.endswith(".html"):
        return _Text().convert(Path(source).read_text(encoding="utf-8", errors="replace"))
    if source.endswith(".gz"):
        with gzip.open(source, "rt", encoding="utf-8", errors="replace") as handle:
            return handle.read()
    return Path(source).read_text(encoding="utf-8", errors="replace")


def accept_name(prefix: str, source: str) -> str:
    if ".info.gz#" in source:
        manual, _, k = source.partition("#")
        return f"{prefix}-gnu-{Path(manual).name.split('.')[0]}-node{k}.fixture"
    path = Path(source.removesuffix(".gz"))
    stem = path.name.split(".")[0].lower()
    parent = path.parent.name.lower().replace("_sources", "devref")
    return f"{prefix}-{parent}-{stem}.fixture".replace("_", "-")


def setup() -> None:
    """$WILD's venv and npm prefix, and the two sdists unpacked (versions in MANIFEST)."""
    venv = WILD / "venv"
    ensure_venv(
        venv,
        [
            "pyflowchart==0.4.0a4",
            "pipdeptree==4.2.15",
            "lizard==1.24.3",
            "vulture==2.16",
            "code2flow==2.5.1",
            "py-spy==0.4.3",
            "pyinstrument==5.1.3",
            "yappi==1.7.6",
            "uv==0.13.9",
        ],
    )
    ensure_npm(
        WILD / "node",
        ["esbuild@0.25", "terser@5", "uglify-js@3", "commander@12", "express@4", "lodash@4"],
    )
    ensure_venv(  # first-contact-3's tools, apart so that the trees above stay as they were
        WILD / "venv3",
        [
            "mccabe==0.7.0",
            "xenon==0.9.3",
            "astpretty==3.0.0",
            "findimports==3.0.0",
            "grimp==3.20",
            "modulegraph==0.19.7",
            "cohesion==1.2.0",
        ],
    )
    ensure_npm(
        WILD / "node3",
        [
            "espree@10.4.0",
            "prettier@3.10.1",
            "browserify@17.0.1",
            "typhonjs-escomplex@0.1.0",
            "webpack@5.113.0",
            "webpack-cli@5.1.4",
            "@swc/core@1.16.22",
            "@swc/cli@0.8.1",
        ],
    )
    src = WILD / "src"
    for name in (
        "pip==25.2",
        "setuptools==80.9.0",
        "Django==5.2.8",
        "pytest==8.4.2",
        "trio==0.31.0",
    ):
        unpacked = src / name.replace("==", "-").lower()
        if unpacked.exists():
            continue
        src.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                str(venv / "bin" / "pip"),
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                name,
                "-d",
                str(src),
            ],
            check=True,
        )
        subprocess.run(["tar", "xzf", f"{unpacked}.tar.gz", "-C", str(src)], check=True)


def run(tool: Tool) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, **ENV, "TMP": tmp, "HOME": os.environ.get("HOME", tmp)}
        for name, code in WORKLOADS.items():
            Path(tmp, f"{name}.py").write_text(code, encoding="utf-8")
        done = subprocess.run(
            ["bash", "-c", tool.command],
            capture_output=True,
            text=True,
            errors="replace",
            env=env,
            timeout=600,
            check=False,
            cwd=REPO,
        )
        out = done.stdout
        if len(out.strip().splitlines()) < 8 and len(out) < 1000:  # a minifier's line or two
            raise RuntimeError(
                f"{tool.name}: too little output (rc {done.returncode}): {len(out)} characters"
            )
        for value, name in ((tmp, "$TMP"), *((v, f"${k}") for k, v in ENV.items())):
            out = out.replace(value, name)
        return out


def narrate(lines: list[str]) -> str:
    """A call narration: each caller/callee pair that ``trace --trackcalls`` printed
    ("mod.f -> mod.g"), as the sentences an agent writes when asked how
    a function works, with no file or line numbers."""
    edges: list[tuple[str, str]] = []
    for line in lines:
        caller, arrow, callee = line.strip().partition(" -> ")
        if arrow:
            edges.append((caller.partition(".")[2], callee.partition(".")[2]))
    seen: list[tuple[str, str]] = []
    for edge in edges:
        if edge not in seen and edge[0] != edge[1] and "<" not in edge[0] + edge[1]:
            seen.append(edge)
    out = []
    for caller, callee in seen[:40]:
        then = [d for c, d in seen if c == callee][:2]
        tail = (
            f"; `{callee}()` in turn calls " + ", ".join(f"`{d}()`" for d in then) if then else ""
        )
        out.append(f"- `{caller}()` calls `{callee}()`{tail}.")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=(ST, FC, FC2, FC3, "all"), default="all")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--setup", action="store_true")
    parser.add_argument("--narrate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.narrate:
        sys.stdout.write(narrate(sys.stdin.read().splitlines()))
        return 0
    if args.setup:
        setup()
    rows = {row["path"]: row for row in _manifest_rows()}
    failed = generate(TOOLS, run, rows, args.split, args.only)
    accepts = []
    if args.split in (ST, "all") and not args.only:
        accepts += [(ST, "st", s) for s in SHAPE_TUNE_ACCEPT]
    if args.split in (FC, "all") and not args.only:
        accepts += [(FC, "fc", s) for s in first_contact_accept()]
    if args.split in (FC2, "all") and not args.only:
        accepts += [(FC2, "f2", s) for s in first_contact_2_accept()]
    if args.split in (FC3, "all") and not args.only:
        accepts += [(FC3, org, s) for org, s in first_contact_3_accept()]
    for split, prefix, source in accepts:
        text = _read(source)
        if len(text.split("\n")) < 30:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as handle:
            handle.write(text)
        try:
            body = copy_accept(handle.name)
        finally:
            os.unlink(handle.name)
        name = f3_accept_name(prefix, source) if split == FC3 else accept_name(prefix, source)
        path = f"accept/{name}"
        (OUT / path).write_text(body, encoding="utf-8")
        shown = source.replace(str(WILD), "$WILD")
        rows[path] = {
            "path": path,
            "label": "accept",
            "family": "",
            "format": "",
            "language": "",
            "split": split,
            "source": shown,
        }
        print(f"{split:13s} {path:52s} {len(body.splitlines()):4d} lines")
    write_manifest(list(rows.values()))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
