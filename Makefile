# context-ls — see README.md. `make deps` prepares a fresh machine; every
# other target assumes it has run (make test and make bench run it first).
GO        ?= go
BIN       ?= bin/context-ls
CACHE     ?= $(CURDIR)/.cache
# The random-weight model with the exact all-MiniLM-L6-v2 architecture: a
# test fixture for speed and plumbing only, never offered to users.
FIXTURE   ?= $(CACHE)/models/minilm-arch-random-fixture
TESTFLAGS ?= -timeout 20m
export CGO_ENABLED = 1

.PHONY: all build dist test test-go test-dist test-mcp test-editors bench bench-index bench-search bench-localise bench-spans bench-pack bench-graph bench-edit bench-embed bench-vectors bench-share bench-reliability bench-linux deps deps-system deps-go deps-ort deps-fixture deps-editors deps-neovim lint demo clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/context-ls

## dist: the release archive and the VS Code extension carrying it, for
## this machine's platform (PLATFORM=linux-x64, linux-arm64, darwin-arm64,
## darwin-x64 or windows-x64 on a machine of that platform), in dist/:
## context-ls-PLATFORM.tar.gz, context-ls-PLATFORM.vsix, SHA256SUMS. Two runs
## from the same commit give identical files (scripts/dist.sh says how).
PLATFORM ?=
dist:
	scripts/dist.sh $(PLATFORM)

## test: the whole suite (what CI runs), the release archive and extension
## built once and tested as a new user gets them.
test: deps build dist test-go test-dist test-mcp test-editors

test-go:
	$(GO) test $(TESTFLAGS) ./...

# The release archive unpacked into an empty directory: doctor and search
# with no environment but an empty HOME.
test-dist:
	CONTEXT_LS_DIST=$(CURDIR)/dist $(GO) test ./cmd/context-ls -run 'TestReleaseArchive' -count=1 -v

# The VS Code extension: unit tests and the real server (npm test), then the
# packaged extension inside a real VS Code (code-server + headless Chromium,
# installed by deps-editors; screenshots of failures in
# editors/vscode/test-results/e2e), and the platform extension make dist
# built, installed alone for a user with an empty HOME and no context-ls or
# Go on PATH (test-results/e2e-dist); the Neovim plugin on every Neovim at
# hand, its build step installing the release archive.
# The MCP server driven by the official MCP TypeScript SDK's client over
# stdio, as an agent runs it (handshake, tools/list, tool calls).
test-mcp:
	cd mcp/clienttest && node test.mjs $(abspath $(BIN))

test-editors:
	cd editors/vscode && npm test
	cd editors/vscode && CONTEXT_LS_BIN=$(abspath $(BIN)) CONTEXT_LS_DIST_VSIX="$(firstword $(wildcard $(CURDIR)/dist/context-ls-*.vsix))" npm run test:e2e
	CONTEXT_LS_NVIM_DIR=$(CACHE)/neovim CONTEXT_LS_DIST_ARCHIVE="$(firstword $(wildcard $(CURDIR)/dist/context-ls-*.tar.gz))" editors/neovim/tests/run.sh

## bench: every tracked figure, with its target (see README "Benchmarks").
bench: deps build bench-index bench-search bench-localise bench-spans bench-pack bench-graph bench-edit bench-embed bench-vectors bench-share

bench-index:
	$(GO) run ./bench index

bench-search:
	$(GO) run ./bench search

# File localisation from change descriptions (../shared/eval/localisation-dev.jsonl):
# Acc@1/3/5 and MRR per repository, against the BM25 baseline; then hybrid
# against lexical on every fifth query (embeds those trees with use-lite on
# the first run). The trees are unpacked from git copies of the five
# repositories in $(MIRRORS) (MIRRORS/<owner>+<name>[/repo]); without them the
# figures are skipped.
MIRRORS ?= $(CONTEXT_EVAL_MIRRORS)
bench-localise:
	$(GO) run ./bench localise -mirrors "$(MIRRORS)"
	$(GO) run ./bench localise -mirrors "$(MIRRORS)" -hybrid -every 5

# Definitions and packs for change descriptions (../shared/eval/localisation-dev-spans.jsonl,
# scored by its score_pack.py): function Acc@5/10 over the search hits, pack
# coverage of the edited definitions at 2,000 and 4,000 tokens, markdown and
# json, pack file recall, in-process pack latency. Trees as bench-localise.
bench-spans:
	$(GO) run ./bench spans -mirrors "$(MIRRORS)"

# Context packs on the golden queries: expected file/definition, relevance
# per token against a naive BM25 pack, latency.
bench-pack:
	$(GO) run ./bench pack

# Embedding net/http with use-lite: rate, peak RSS, cache on re-run.
bench-embed:
	$(GO) run ./bench embed

# Embedding pipeline vs a bare ONNX session, vector queries over 200k
# vectors, quantised vs fp32 top-10 overlap.
bench-vectors:
	$(GO) test ./vectors -run '^$$' -bench 'EmbedPipelineVsBare|Search|QuantizedRecall' -benchtime 3x

# Callers and tests vs gopls's call hierarchy on pebble v1.1.5 and on the
# generics-heavy gods v2 (targets drawn at random with a fixed seed, plus
# common method names); vs pyright on httpx and tsserver on hono and p-queue
# (their git copies from $(MIRRORS), the servers installed from npm into
# $(CACHE)/bench-graph/tools; a missing copy or tool is skipped, saying
# so); tests vs gopls and query latency on the Go standard library (index
# kept in $(CACHE)), graph share of indexing time. Exits non-zero when a
# figure is below its floor.
bench-graph:
	$(GO) run ./scripts/bench-graph --work $(CACHE)/bench-graph --db $(CACHE)/bench-graph/stdlib-index --mirrors "$(MIRRORS)"

# Index sharing: a service call made by the owner vs one forwarded over its
# socket (what an MCP server or a CLI command pays), and a handover.
bench-share:
	$(GO) test ./share -run '^$$' -bench 'ShareCall' -benchtime 2000x
	$(GO) test ./share -run '^$$' -bench 'Handover' -benchtime 5x

# The long reliability suite (not in bench or test: ~10 min): full disk on
# a tmpfs (needs root; skipped otherwise), a 200 MiB file, 200 random bytes
# in index files, 20 kill -9 mid-index, planted secrets and false
# redactions over the Go standard library. Exits non-zero on a problem.
bench-reliability: build
	$(GO) run ./bench reliability

# The Linux kernel (Debian's linux-source-6.1, 78k files; not in bench or
# test: the cold index takes tens of minutes on 2 cores): installs the
# package if needed, unpacks it once into the user cache directory (outside
# any git repository, where its .gitignore does not apply), and prints the cold
# index against `ctags -R` on the same tree in the same run, peak RSS, index
# size against the source, unchanged re-index, a fresh CLI process's first
# answer and search/pack latency over 20 queries; non-zero above a limit.
bench-linux: build
	@dpkg -s linux-source-6.1 >/dev/null 2>&1 || apt-get install -y --no-install-recommends linux-source-6.1
	$(GO) run ./bench linux

# Edit-to-fresh latency of the language server on the Go standard library,
# its memory after bootstrap.
bench-edit:
	$(GO) run ./bench edit

## deps: everything a fresh machine needs for build, test and bench.
deps: deps-system deps-go deps-ort deps-fixture deps-editors deps-neovim

deps-system:
	scripts/install-system-deps.sh

deps-go:
	$(GO) mod download

deps-ort:
	scripts/fetch-ort.sh

deps-fixture:
	@if [ -f $(FIXTURE)/model.onnx ]; then echo "fixture model present: $(FIXTURE)"; \
	elif /usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null; then \
		/usr/bin/python3 scripts/gen-minilm-fixture.py $(FIXTURE); \
	else echo "python3-onnx/numpy missing: fixture model not generated (its tests skip)"; fi

deps-editors:
	cd editors/vscode && npm ci --no-audit --no-fund
	cd mcp/clienttest && npm ci --no-audit --no-fund
	scripts/install-code-server.sh

# Newer Neovims (Debian trixie's 0.10 and sid's newest) for the plugin
# tests, unpacked into $(CACHE)/neovim; the system's 0.7.2 is tested too.
deps-neovim:
	editors/neovim/tests/install-neovim.sh $(CACHE)/neovim

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## demo: build, index this repository, search it and build a small context pack.
demo: build
	$(BIN) index --root .
	@echo; echo '$$ context-ls search --languages go "where is a file written to the index in one batch"'
	@$(BIN) search --root . --languages go --k 5 "where is a file written to the index in one batch"
	@echo; echo '$$ context-ls callers Snapshot.Search'
	@$(BIN) callers --root . Snapshot.Search
	@echo; echo '$$ context-ls pack --budget 1200 "how are search results fused and ranked"'
	@$(BIN) pack --root . --budget 1200 "how are search results fused and ranked"

clean:
	rm -rf bin dist
