# context-ls — see README.md. Every target runs on a fresh machine after `make deps`.
GO        ?= go
BIN       ?= bin/context-ls
GOFLAGS   ?=
export CGO_ENABLED = 1

.PHONY: all build test bench deps lint demo clean

all: build

build:
	$(GO) build $(GOFLAGS) -o $(BIN) ./cmd/context-ls

test: build
	$(GO) test $(GOFLAGS) ./...

bench: build
	$(GO) test $(GOFLAGS) -run '^$$' -bench . -benchtime 1x ./...

deps:
	$(GO) mod download

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
