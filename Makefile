# The endovisor book and its prototype.
#
#   make book    build the HTML book in book/site/ (boots the guest first if
#                no log exists yet)
#   make hello   boot the guest once: the hello sandbox kernel on two vCPUs;
#                the console lands in prototype/.build/hello.log
#   make check   check the book against the logs and the code; write nothing
#   make test    go vet, gofmt, and every test (which boots the guest)
#   make clean   remove everything built
GO ?= go
BUILD := prototype/.build
GUEST := $(GO) run ./tools/guest
MKBOOK := $(GO) run ./cmd/mkbook

.PHONY: all book hello check test clean

all: book

hello:
	$(GUEST) run hello

$(BUILD)/hello.log:
	$(GUEST) run hello

book: $(BUILD)/hello.log
	$(MKBOOK) build

check:
	$(MKBOOK) check

test:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) test -count=1 -timeout 60m ./...

clean:
	rm -rf $(BUILD) book/site
