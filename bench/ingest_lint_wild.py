# ruff: noqa: E501  (each TOOLS entry is a shell command recorded verbatim in MANIFEST.tsv)
"""Build issue 24's two new splits of the wider ingest-lint corpus: ``shape-tune`` (new
tools and organisations, used while the shape model was built) and ``first-contact``
(other tool families and other organisations, generated before any tuning, set aside,
and scored once at the end).

    python bench/ingest_lint_wild.py [--split shape-tune|first-contact|all] [--setup]

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
    src = WILD / "src"
    for name in ("pip==25.2", "setuptools==80.9.0"):
        unpacked = src / name.replace("==", "-")
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
    parser.add_argument("--split", choices=(ST, FC, FC2, "all"), default="all")
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
        path = f"accept/{accept_name(prefix, source)}"
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
