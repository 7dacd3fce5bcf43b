# mcptray build and test entry points. `make help` lists the targets.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build
.DELETE_ON_ERROR:
MAKEFLAGS += --no-print-directory

GO          ?= go
CACHE       := $(CURDIR)/.cache
TOOLS_BIN   := $(CACHE)/bin
BIN         := bin/mcptray
STDIO_BIN   := bin/mcptray-stdio
TEST_TIMEOUT ?= 10m
GOTESTFLAGS ?=
# Every go command here (vet, staticcheck's go list, go test, the builds)
# builds as scripts/build.sh builds the programs: both flags are in the
# build cache's keys, so the desktop toolkit's C code (GLFW, OpenGL: ~6
# minutes on a cold cache) is compiled once for make test's vet, tests and
# smoke, and for make check and make run, not once per set of flags.
export GOFLAGS := $(strip $(filter-out -trimpath -buildmode=%,$(GOFLAGS)) -trimpath -buildmode=pie)
BENCHTIME   ?= 1s
ARGS        ?=

# Debian packages the build needs, as CHECK:PACKAGE (CHECK = a command, or a file
# that must exist). cgo (mattn/go-sqlite3) needs a C compiler and the libc headers;
# the conformance suite is installed with npm; Fyne's GLFW driver (the desktop
# app: app/, assets/ and gui.go) needs the X11 and GL headers, also for
# `go vet`/`go test`. The headless build (`make headless`) needs none of them.
DEB_DEPS := gcc:gcc /usr/include/stdio.h:libc6-dev npm:npm pkg-config:pkg-config \
	/usr/include/GL/gl.h:libgl1-mesa-dev /usr/include/X11/Xlib.h:libx11-dev \
	/usr/include/X11/Xcursor/Xcursor.h:libxcursor-dev /usr/include/X11/extensions/Xrandr.h:libxrandr-dev \
	/usr/include/X11/extensions/Xinerama.h:libxinerama-dev /usr/include/X11/extensions/XInput2.h:libxi-dev \
	/usr/include/X11/extensions/xf86vmode.h:libxxf86vm-dev

# staticcheck, pinned; installed into $(TOOLS_BIN) on first use.
STATICCHECK_VERSION := v0.8.2
STATICCHECK         := $(TOOLS_BIN)/staticcheck
# The stamp names the Go version too: a staticcheck built by an older Go may not
# understand a newer Go's code.
STATICCHECK_STAMP    = $(TOOLS_BIN)/.staticcheck-$(STATICCHECK_VERSION)-$(shell $(GO) env GOVERSION)

# Go sources for gofmt: everything but hidden dirs (.cache, .git), node_modules, testdata
# and third_party (upstream code, kept as upstream wrote it).
GO_FILES = $(shell find . \( -name '.?*' -o -name node_modules -o -name testdata -o -name third_party \) -prune -o -name '*.go' -type f -print)

step = @printf '\n==> %s\n' "$(1)"

# The packages that do not need Fyne: everything but the window process's
# (app, app/editor, app/ui and their tests' app/internal/uitest) and
# app/trayicon (fyne.io/systray, cgo on macOS); make windows builds those for
# Windows. With -tags headless the root package (the mcptray command) is one
# of them; the serving process's tray (app/tray) and the link are too.
HEADLESS_PKGS = $(shell $(GO) list -tags headless ./... | grep -v -e '/app$$' -e '/app/trayicon$$' -e '/app/ui$$' -e '/app/editor$$' -e '/app/internal/uitest$$')

.PHONY: help check deps build install uninstall run smoke smoke-golden test fmt-check vet staticcheck headless cross unit fuzz fuzz-short tsclient continue-cli conformance conformance-upstream bench bench-shim clean distclean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /  \1\t/' | expand -t 16

deps: ## install missing system packages (gcc, libc headers, npm, X11/GL headers for Fyne)
	@bash scripts/deps.sh $(DEB_DEPS)

# The flags (and the version the programs say) are make package's too:
# scripts/build.sh holds them.
build: deps ## build bin/mcptray and bin/mcptray-stdio, as make package does (PIE, -trimpath, the version of FyneApp.toml)
	@GO=$(GO) bash scripts/build.sh

# Installed for the current user (no root): the programs in ~/.local/bin, the
# desktop entry and icons under ~/.local/share. AI clients' entries name the
# installed shim, which `make clean` or moving the checkout cannot break.
INSTALL_PREFIX ?= $(HOME)/.local

install: build ## install for the current user: ~/.local/bin/{mcptray,mcptray-stdio}, desktop entry and icons (no root)
	@PREFIX=$(INSTALL_PREFIX) GO=$(GO) bash scripts/install.sh

uninstall: ## remove what make install put in ~/.local (never the database)
	@PREFIX=$(INSTALL_PREFIX) GO=$(GO) bash scripts/install.sh uninstall

run: install ## build, install for the current user, and start the installed app on its default database (ARGS=... to pass flags)
	$(INSTALL_PREFIX)/bin/mcptray $(ARGS)

# Every step runs even when an earlier one fails, so one run shows all problems;
# the target fails if any step did. The last lines on success are the tables of
# the conformance suite through mcptray and their summary: the check that the
# run left nothing behind (scripts/leftovers.sh) is silent when it holds.
# make wine reuses the Windows programs of make windows's step.
TEST_STEPS := fmt-check vet staticcheck headless cross windows unit fuzz-short smoke wine tsclient continue-cli conformance conformance-upstream
test: deps ## gofmt, vet, staticcheck, headless, cross and Windows builds, go test, a short fuzz run, Xvfb smoke, Windows programs under Wine, TypeScript client, Continue's CLI, conformance (of mcptray, and through mcptray), then nothing left behind
	@failed=""; built=""; state=$$(mktemp); bash scripts/leftovers.sh start "$$state"; \
	for step in $(TEST_STEPS); do \
	  if $(MAKE) $$step $$built; then [ $$step != windows ] || built=WINDOWS_BUILT=1; else failed="$$failed $$step"; fi; \
	done; \
	bash scripts/leftovers.sh check "$$state" || failed="$$failed leftovers"; \
	if [ -n "$$failed" ]; then printf '\nmake test: FAILED:%s\n' "$$failed"; exit 1; fi

# The quick check between commits: format, vet, and the unit tests with
# -short, which skips what builds or starts mcptray's own programs or waits
# out real timeouts (testutil.Long), and every step of make test that needs
# npm, Xvfb or mingw. GOGC=400: the GUI tests measure text all day, and a
# third of their time went to the collector. -p 4: the test binaries wait on
# sockets, timers and the linker as much as on the CPU, so four at once keep
# two cores busy.
check: ## the quick check between commits (< 1 min on a warm build cache): gofmt, vet (also for Windows), go test -short
	@$(MAKE) --no-print-directory fmt-check vet
	$(call step,go vet for Windows (what only a Windows build reads))
	@CGO_ENABLED=0 GOOS=windows $(GO) vet -tags headless $(HEADLESS_PKGS) && echo ok
	$(call step,go test -short -count=1 ./...)
	@GOGC=400 $(GO) test -p 4 -short -count=1 ./...

fmt-check: ## fail if gofmt would change a file
	$(call step,gofmt -l)
	@out=$$(gofmt -l $(or $(GO_FILES),/dev/null)); \
	if [ -n "$$out" ]; then echo "gofmt: these files need formatting (run gofmt -w):"; echo "$$out"; exit 1; fi; \
	echo "ok"

vet: ## go vet ./...
	$(call step,go vet ./...)
	@$(GO) vet ./... && echo ok

$(STATICCHECK_STAMP):
	@echo "installing staticcheck $(STATICCHECK_VERSION) into $(TOOLS_BIN)"
	@mkdir -p $(TOOLS_BIN)
	@GOBIN=$(TOOLS_BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@rm -f $(TOOLS_BIN)/.staticcheck-* && touch $@

staticcheck: $(STATICCHECK_STAMP) ## staticcheck ./... (pinned, project-local)
	$(call step,staticcheck $(STATICCHECK_VERSION) ./...)
	@$(STATICCHECK) ./... && echo ok

headless: ## bin/mcptray-headless: every command, no desktop app, no Fyne (builds without X11/GL headers)
	$(call step,headless build (go build -tags headless .))
	@CGO_ENABLED=1 $(GO) build -tags headless -o bin/mcptray-headless .
	@gui=$$($(GO) list -tags headless -deps . | grep -E '^(fyne\.io/|github\.com/go-gl/)' || true); \
	if [ -n "$$gui" ]; then echo "the headless build pulls in GUI packages:"; echo "$$gui"; exit 1; fi; \
	bin/mcptray-headless version && echo ok

# Windows and macOS cannot run here: their builds are checked as far as a
# cross-compile goes. The shim is pure Go and builds whole; the other
# non-GUI packages, tests included, must type-check and vet (cgo off: the
# SQLite driver compiles as a stub; the GUI needs the target's cgo toolchain).
CROSS_TARGETS := windows/amd64 darwin/arm64
cross: ## the shim for Windows and macOS, and go vet of every non-GUI package for them
	$(call step,cross-compile for $(CROSS_TARGETS))
	@for t in $(CROSS_TARGETS); do \
	  os=$${t%/*}; arch=$${t#*/}; \
	  echo "$$t: build cmd/mcptray-stdio, vet $(words $(HEADLESS_PKGS)) packages"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -o /dev/null ./cmd/mcptray-stdio || exit 1; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) vet -tags headless $(HEADLESS_PKGS) || exit 1; \
	  if [ $$os = windows ]; then CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) vet ./app/trayicon || exit 1; fi; \
	done; echo ok

# go-sdk's TestStreamableStateful_DiscoverDoesNotLeakSession counts the
# server's sessions the moment a client's Close returns, while the server
# ends the session on a goroutine of its own: on a loaded machine it fails
# (in 40 runs beside two busy loops, every run), whatever our patch. Our
# patch touches no session's life, and of streams only how an event's
# bytes are written and the error of a call whose stream ended without
# its response (docs/go-sdk-patch.md).
GO_SDK_FLAKY := TestStreamableStateful_DiscoverDoesNotLeakSession
unit: ## go test ./... (TEST_TIMEOUT, GOTESTFLAGS), and go-sdk's own tests of the packages we patch (third_party/go-sdk)
	$(call step,go test -count=1 -timeout=$(TEST_TIMEOUT) $(GOTESTFLAGS) ./...)
	@$(GO) test -count=1 -timeout=$(TEST_TIMEOUT) $(GOTESTFLAGS) ./...
	@cd third_party/go-sdk && $(GO) test -count=1 -skip '$(GO_SDK_FLAKY)' ./internal/json/... ./internal/jsonrpc2/... ./mcp

# The fuzz targets, as PACKAGE:TARGET: every hand-written parser and boundary
# (catalog import, the router's body peek, the folder-template path resolver,
# templates with hostile values, the client config merges and server readers, the shim's line
# reader, SSE relay and header encoding, the importers' templates, which must
# hold no action of their input's). Seeds and every crash found are in
# each package's testdata/fuzz/TARGET/, which plain `go test` runs too.
FUZZ_TARGETS := ./mcpcore:FuzzParseCatalog ./mcpcore:FuzzRouterPeek ./mcpcore:FuzzFolderPath \
	./mcpcore/actions:FuzzTemplateValues \
	./clientconfig:FuzzMergeJSONC ./clientconfig:FuzzMergeJSON ./clientconfig:FuzzMergeTOML ./clientconfig:FuzzMergeYAML ./clientconfig:FuzzMergeContinueYAML ./clientconfig:FuzzReadServers \
	./cmd/mcptray-stdio:FuzzReadLine ./cmd/mcptray-stdio:FuzzIDIn ./cmd/mcptray-stdio:FuzzReadSSE ./cmd/mcptray-stdio:FuzzHeaderValue \
	./importer:FuzzOpenAPIOwnActions ./importer:FuzzOpenAPISpecOwnActions ./importer:FuzzCurlOwnActions
FUZZTIME ?= 1m
# make test's budget is a count of executions, not a duration: Go 1.26 can fail
# a duration-bounded run when its clock ends mid-call (see scripts/fuzz.sh).
FUZZ_SHORT_COUNT ?= 10000x
fuzz: ## every fuzz target for FUZZTIME (default 1m); a crash is saved in its testdata/fuzz/ and fails the run
	$(call step,fuzz $(words $(FUZZ_TARGETS)) targets for $(FUZZTIME) each)
	@GO=$(GO) scripts/fuzz.sh $(FUZZTIME) $(FUZZ_TARGETS)

fuzz-short: ## every fuzz target for FUZZ_SHORT_COUNT executions (default 10000x): the part of make test
	$(call step,fuzz $(words $(FUZZ_TARGETS)) targets for $(FUZZ_SHORT_COUNT) executions each)
	@GO=$(GO) scripts/fuzz.sh $(FUZZ_SHORT_COUNT) $(FUZZ_TARGETS)

# The Xvfb smoke test's tools: X server, input, screenshots, D-Bus session, gdbus, curl.
SMOKE_DEPS := xvfb-run:xvfb xauth:xauth xdotool:xdotool /usr/bin/import:imagemagick \
	dbus-run-session:dbus gdbus:libglib2.0-bin python3:python3 ss:iproute2 \
	gtk-sni-tray-standalone:haskell-gtk-sni-tray-utils
SMOKE_OUT ?= smoke-shots

SNIWATCHER_BIN := bin/sniwatcher

smoke: ## the desktop app under Xvfb at 1366x768, without and with a tray host; screenshots in SMOKE_OUT
	$(call step,desktop smoke under Xvfb (scripts/smoke.sh $(SMOKE_OUT)))
	@bash scripts/deps.sh $(SMOKE_DEPS)
	@$(MAKE) build
	@$(GO) build -o $(SNIWATCHER_BIN) ./tests/sniwatcher
	@MCPTRAY_BIN=$(CURDIR)/$(BIN) SNIWATCHER_BIN=$(CURDIR)/$(SNIWATCHER_BIN) bash scripts/smoke.sh $(SMOKE_OUT)

smoke-golden: ## run the smoke and make its key screens the new golden images (tests/smoke-golden); look at them before committing
	@SMOKE_UPDATE_GOLDEN=1 $(MAKE) smoke

tsclient: ## the official TypeScript MCP client through bin/mcptray-stdio (both eras)
	$(call step,TypeScript client via mcptray-stdio (scripts/tsclient.sh))
	@$(MAKE) build
	@MCPTRAY_BIN=$(CURDIR)/$(BIN) MCPTRAY_STDIO_BIN=$(CURDIR)/$(STDIO_BIN) bash scripts/tsclient.sh

continue-cli: ## Continue's CLI (cn, pinned from npm) gets mcptray's tools after `config continue --install` (no model, no account; skipped when npm cannot install it)
	$(call step,Continue's CLI after config continue --install (scripts/continue-cli.sh))
	@$(MAKE) build
	@MCPTRAY_BIN=$(CURDIR)/$(BIN) MCPTRAY_STDIO_BIN=$(CURDIR)/$(STDIO_BIN) bash scripts/continue-cli.sh

conformance: ## MCP conformance suite against bin/mcptray serve (both revisions; tasks-* must pass)
	$(call step,MCP conformance (scripts/conformance.sh))
	@$(MAKE) build
	@CONFORMANCE_STRICT_TASKS=$${CONFORMANCE_STRICT_TASKS:-1} MCPTRAY_BIN=$(CURDIR)/$(BIN) bash scripts/conformance.sh

conformance-upstream: ## MCP conformance through mcptray fronting go-sdk's everything-server: both tables, fails when mcptray misses a scenario the server passes
	$(call step,MCP conformance through mcptray (scripts/conformance-upstream.sh))
	@$(MAKE) build
	@MCPTRAY_BIN=$(CURDIR)/$(BIN) bash scripts/conformance-upstream.sh

bench: ## benchmarks: scripts/bench.sh if present, else go test -bench over ./...
	@if [ -f scripts/bench.sh ]; then set -x; bash scripts/bench.sh; \
	else set -x; $(GO) test -run='^$$' -bench=. -benchtime=$(BENCHTIME) ./...; fi

bench-shim: ## mcptray-stdio start to first answer (median, p90) against a running mcptray
	$(GO) test -run='^$$' -bench=StartToFirstAnswer -benchtime=200x ./cmd/mcptray-stdio

# Windows, cross-compiled with mingw-w64 (cgo: Fyne and SQLite), with the
# resources (icon, manifest, version) windres compiles.
WINDOWS_DEPS := x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64 x86_64-w64-mingw32-windres:binutils-mingw-w64-x86-64
windows: ## dist/windows/mcptray.exe (GUI subsystem, icon and version) and mcptray-stdio.exe, inspected
	$(call step,Windows programs (scripts/windows.sh build))
	@bash scripts/deps.sh $(WINDOWS_DEPS)
	@GO=$(GO) bash scripts/windows.sh build

# The Windows programs run under Wine (Debian's wine64), end to end, driven
# from Linux by tests/wine: installed by the installer into a throwaway
# prefix whose user is "Jane Doe", then serve, the shim, every offline
# example, the clients' entries, the console, secrets, the instance lock,
# the job object, the desktop under Xvfb (screenshots in SMOKE_OUT/wine,
# compared with tests/smoke-golden/wine-*), the uninstaller. Where Wine
# cannot be installed it says it skipped them. WINDOWS_BUILT=1 (make test,
# after its windows step): use dist/windows as built.
WINE_DEPS := /usr/lib/wine/wine64:wine64 $(WINDOWS_DEPS) makensis:nsis xvfb-run:xvfb xauth:xauth script:bsdutils \
	xdotool:xdotool /usr/bin/import:imagemagick
WINE_OUT = $(SMOKE_OUT)/wine
wine: ## the Windows programs, installed and run under Wine and Xvfb (tests/wine); screenshots in SMOKE_OUT/wine
	$(call step,Windows programs under Wine (tests/wine))
	@if ! bash scripts/deps.sh $(WINE_DEPS); then \
	  echo "wine: SKIPPED: Wine cannot be installed on this machine (see above): the Windows programs were not run"; exit 0; fi; \
	if [ -z "$(WINDOWS_BUILT)" ]; then $(MAKE) windows; fi; \
	GO=$(GO) NSIS_COMPRESSOR=zlib bash scripts/windows.sh installer; \
	mkdir -p $(WINE_OUT); log=$(WINE_OUT)/wine-test.log; start=$$(date +%s); \
	MCPTRAY_WINE_DIST=$(CURDIR)/dist/windows MCPTRAY_WINE_SETUP=$$(ls -t $(CURDIR)/dist/mcptray-*-windows-amd64-setup.exe | head -1) \
	  MCPTRAY_WINE_SHOTS=$(abspath $(WINE_OUT)) GO=$(GO) xvfb-run -a -s "-screen 0 1366x768x24 -nolisten tcp" \
	  $(GO) test -count=1 -v -timeout 15m ./tests/wine >"$$log" 2>&1 && rc=0 || rc=$$?; \
	grep -E '^\s*--- (PASS|FAIL|SKIP)|^wine:' "$$log" || true; \
	pass=$$(grep -cE '^\s*--- PASS' "$$log" || true); fail=$$(grep -cE '^\s*--- FAIL' "$$log" || true); \
	if [ $$rc != 0 ]; then cat "$$log"; fi; \
	echo "wine: $$pass checks passed, $$fail failed under Wine in $$(( $$(date +%s) - start )) s (log: $$log)"; \
	exit $$rc

# Release artefacts and their validators: desktop-file-validate, appstreamcli
# and lintian for Linux, makensis and 7-Zip (which lists the installer) for
# Windows; the MCP Bundle CLI comes from npm (scripts/mcpb.sh); jq reads the
# answers of the upgrade check (scripts/upgrade.sh).
PACKAGE_DEPS := desktop-file-validate:desktop-file-utils appstreamcli:appstream lintian:lintian \
	dpkg-shlibdeps:dpkg-dev makensis:nsis zip:zip unzip:unzip 7z:p7zip-full file:file jq:jq $(WINDOWS_DEPS)
.PHONY: windows wine package package-check

package: deps ## dist/: the Linux tar.gz and .deb, the Windows zip and installer, the Claude Desktop .mcpb; each checked
	$(call step,release artefacts (scripts/package.sh, windows.sh, mcpb.sh))
	@bash scripts/deps.sh $(PACKAGE_DEPS)
	@GO=$(GO) bash scripts/package.sh
	@GO=$(GO) bash scripts/windows.sh package
	@GO=$(GO) bash scripts/mcpb.sh build

package-check: ## check what make package made: contents, versions, lintian, desktop-file-validate, appstreamcli, an upgrade (.deb and make install), PE headers, mcpb validate
	@bash scripts/deps.sh $(PACKAGE_DEPS)
	@state=$$(mktemp); bash scripts/leftovers.sh start "$$state"; \
	GO=$(GO) bash scripts/package.sh check && GO=$(GO) bash scripts/upgrade.sh && GO=$(GO) bash scripts/windows.sh check && GO=$(GO) bash scripts/mcpb.sh check; \
	rc=$$?; bash scripts/leftovers.sh check "$$state" || rc=1; exit $$rc

clean: ## remove build outputs
	rm -rf bin

distclean: clean ## also remove .cache (installed tools, conformance suite)
	rm -rf .cache
