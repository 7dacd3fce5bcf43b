#!/usr/bin/env bash
# Smoke test of the desktop app under Xvfb at 1366x768, in two sessions on one
# fresh config folder:
#
#  a. no tray host (the D-Bus session has no StatusNotifierWatcher, as on stock
#     GNOME): mcptray, started plainly, shows its window within seconds; the
#     window fits the screen on every tab (Ctrl+1…6); closing it asks before
#     quitting; File ▸ Quit, driven through the menu bar, ends the process.
#  b. a tray host (gtk-sni-tray-standalone, or tests/sniwatcher, a stand-in
#     StatusNotifierWatcher, where that is not installed): the tray icon
#     registers and the window waits until the tray's Open mcptray, in a
#     process of its own (mcptray window); then the editor, an approval
#     (answered, and once with its window process killed), closing the
#     window (its process ends; the serving process has no X connection and
#     no GL driver), a second launch, a task, the window following what the
#     command line writes (a token, a tool, a secret: each shows within
#     2 s), Try it on a tool that runs in the background (its progress,
#     then Cancel: "cancelled" in Activity), the highlight after a tool
#     made from curl, Connect a client, and Quit from the tray menu, all
#     over D-Bus (dbusmenu) as a tray host drives it.
#
# Key screens are compared with golden images in tests/smoke-golden (halved,
# ImageMagick `compare -metric AE -fuzz 5%`, at most GOLDEN_BUDGET per mille
# of the pixels may differ), so a layout change fails here. After a change
# that is meant, refresh them with `make smoke-golden` (SMOKE_UPDATE_GOLDEN=1)
# and look at the new ones before committing them.
#
#   scripts/smoke.sh [OUTDIR]     (default OUTDIR: smoke-shots)
#
# Needs xvfb-run, xdotool, ImageMagick, dbus-run-session, gdbus and ss (make
# smoke installs them, and gtk-sni-tray-standalone). MCPTRAY_BIN names the binary (default bin/mcptray),
# SNIWATCHER_BIN the watcher stub (default bin/sniwatcher).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=$(realpath -m "${1:-smoke-shots}")
BIN=$(realpath "${MCPTRAY_BIN:-bin/mcptray}")
WATCHER=$(realpath "${SNIWATCHER_BIN:-bin/sniwatcher}")
GOLDEN=$(realpath tests/smoke-golden)
GOLDEN_BUDGET=${GOLDEN_BUDGET:-5}
SCREEN_W=1366 SCREEN_H=768

if [[ -z ${SMOKE_INNER:-} ]]; then
  mkdir -p "$OUT"
  rm -f "$OUT"/*.png "$OUT"/*.log "$OUT"/*.txt
  # A fresh home: a new database (first start), and nothing the session bus
  # activates (the keyring) touches the real one.
  work=$(mktemp -d)
  trap 'rm -rf "$work" 2>/dev/null || true' EXIT
  export HOME=$work XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
  export SMOKE_INNER=1 LANG=en_US.UTF-8 MCPTRAY_BIN=$BIN SNIWATCHER_BIN=$WATCHER
  # The desktop is unknown to the app (its tray notice names no desktop).
  unset XDG_CURRENT_DESKTOP XDG_SESSION_TYPE WAYLAND_DISPLAY
  # The session bus's socket goes in the work folder, not /tmp, where
  # dbus-daemon leaves one behind each run.
  sed "s|<listen>unix:tmpdir=/tmp</listen>|<listen>unix:dir=$work</listen>|" /usr/share/dbus-1/session.conf >"$work/session.conf"
  xvfb-run -a -s "-screen 0 ${SCREEN_W}x${SCREEN_H}x24 -nolisten tcp" dbus-run-session --config-file="$work/session.conf" -- bash "$0" "$OUT" 2> >(grep -v '^dbus-daemon' >&2)
  exit
fi

# /usr/local/bin/convert may be a stand-in on developer machines.
convert=/usr/bin/convert
[[ -x $convert ]] || convert=convert

pid= watcher=
log=$OUT/a-app.log
cleanup() {
  for p in $pid $watcher; do kill "$p" 2>/dev/null && { wait "$p" 2>/dev/null || true; }; done
  true
}
trap cleanup EXIT
fail() {
  echo "smoke: FAIL: $*" >&2
  echo "--- app log ($log)" >&2
  cat "$log" >&2 || true
  import -window root "$OUT/failure.png" 2>/dev/null || true
  exit 1
}
shot() { sleep "${2:-0.8}"; import -window root "$OUT/$1.png"; echo "smoke: $OUT/$1.png"; }
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ep=$XDG_CONFIG_HOME/mcptray/endpoint.json
db=$XDG_CONFIG_HOME/mcptray/mcptray.db
# visible: the id of the shown manager window, if any.
visible() { xdotool search --onlyvisible --name '^mcptray$' 2>/dev/null | head -1; }
click() { xdotool mousemove --window "$win" "$1" "$2" click 1; }
# changed A B: the screenshots differ, i.e. the step in between did something
# (a click that missed its target leaves the screen as it was).
changed() {
  local d n
  d=$(compare -metric AE "$OUT/$1.png" "$OUT/$2.png" null: 2>&1 || true)
  # ImageMagick 6 writes large counts as 1.1e+06.
  n=$(printf '%.0f' "${d%% *}" 2>/dev/null) || fail "comparing $1 and $2: $d"
  ((n > 2000)) || fail "$2 looks like $1 ($n pixels differ): the step between them did nothing"
}
# fits WHAT: the manager window lies wholly on the screen (there is no window
# manager, hence no decorations: the geometry is the whole window).
fits() {
  eval "$(xdotool getwindowgeometry --shell "$win")"
  echo "smoke: $1: the window is ${WIDTH}x$HEIGHT at $X,$Y"
  ((X >= 0 && Y >= 0 && X + WIDTH <= SCREEN_W && Y + HEIGHT <= SCREEN_H)) ||
    fail "$1: the window (${WIDTH}x$HEIGHT at $X,$Y) does not fit the ${SCREEN_W}x$SCREEN_H screen"
}
# golden NAME: the screen, shot as NAME just before, halved, matches
# tests/smoke-golden/NAME.png (SMOKE_UPDATE_GOLDEN=1: becomes it). A busy
# machine may shoot a frame half drawn: a mismatch is shot again, twice.
golden() {
  local small=$OUT/$1.half.png want=$GOLDEN/$1.png d n budget
  "$convert" "$OUT/$1.png" -resize 50% -strip "$small"
  if [[ -n ${SMOKE_UPDATE_GOLDEN:-} ]]; then
    mkdir -p "$GOLDEN" && cp "$small" "$want" && echo "smoke: golden $want written"
    return
  fi
  [[ -f $want ]] || fail "no golden image $want: make smoke-golden writes it"
  budget=$(($(identify -format '%w*%h' "$want") * GOLDEN_BUDGET / 1000))
  for try in 1 2 3; do
    d=$(compare -metric AE -fuzz 5% "$want" "$small" "$OUT/$1.diff.png" 2>&1 || true)
    # ImageMagick 6 writes large counts as 1.1e+06.
    n=$(printf '%.0f' "${d%% *}" 2>/dev/null) || fail "comparing $1 with its golden image: $d"
    ((n <= budget)) && break
    ((try < 3)) || fail "$1 differs from its golden image in $n pixels (at most $budget may): see $OUT/$1.diff.png;" \
      "if the change is meant, make smoke-golden and look at the new image"
    shot "$1" 1
    "$convert" "$OUT/$1.png" -resize 50% -strip "$small"
  done
  echo "smoke: $1 matches its golden image ($n pixels differ, at most $budget may)"
}
# shown SECONDS: waits up to SECONDS for the manager window to show, and
# sets win to it.
shown() {
  win=
  for _ in $(seq $(($1 * 10))); do
    win=$(visible) && [[ -n $win ]] && return
    sleep 0.1
  done
}
# quits WHAT: the app ends within 10 s, cleanly, its endpoint file gone.
quits() {
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "still running 10 s after $1"
  wait "$pid" || fail "exit status $? after $1"
  pid=
  [[ -f $ep ]] && fail "the endpoint file outlived $1"
  if grep -q 'Error in Fyne call thread' "$log"; then fail "UI touched off the Fyne thread"; fi
  echo "smoke: $1 ended mcptray"
}

# ---------------------------------------------------------------- a. no tray
port=$(freeport)
started=$(date +%s%N)
"$BIN" --addr "127.0.0.1:$port" >"$log" 2>&1 &
pid=$!
shown 10
[[ -n $win ]] || fail "no tray host, and no window 10 s after the start"
echo "smoke: a. no tray host: the window shows $((($(date +%s%N) - started) / 1000000)) ms after the start"
grep -q 'no tray icon: mcptray runs as its window' "$log" || fail "the log does not say there is no tray"
# First start: the welcome, over the notice that there is no tray; Escape
# dismisses each.
shot a-01-welcome 1.5
xdotool windowfocus --sync "$win" 2>/dev/null || true
xdotool key --window "$win" Escape
shot a-02-no-tray-notice
changed a-01-welcome a-02-no-tray-notice
xdotool key --window "$win" Escape
xdotool mousemove 1 1 # no hover on the window
shot a-03-tools
changed a-02-no-tray-notice a-03-tools
golden a-03-tools
fits "the Tools tab"
i=4
for tab in tools resources prompts servers activity settings; do
  xdotool key --window "$win" "ctrl+$((i - 3))"
  shot "a-0$i-tab-$tab"
  fits "the ${tab^} tab"
  ((i++))
done
changed a-04-tab-tools a-08-tab-activity
golden a-08-tab-activity # empty: the log has nothing yet
xdotool key --window "$win" ctrl+1
# Closing the window asks first (nothing would be left to bring it back);
# Escape keeps it.
xdotool key --window "$win" ctrl+w
shot a-10-quit-question
golden a-10-quit-question
xdotool key --window "$win" Escape
sleep 0.5
[[ -n $(visible) ]] && kill -0 "$pid" || fail "Escape on the quit question did not keep mcptray"
# File ▸ Quit, through the menu bar: File, then Up (the menu's last item).
click 27 13
shot a-11-file-menu
changed a-10-quit-question a-11-file-menu
xdotool key --window "$win" Up
shot a-12-file-quit 0.4
xdotool key --window "$win" Return
quits "File ▸ Quit"

# -------------------------------------------------------------- b. a tray
# The tray host: gtk-sni-tray-standalone (a real one, drawing the icon and
# its menu with libdbusmenu-gtk) where installed, else tests/sniwatcher (a
# stand-in watcher that draws nothing).
log=$OUT/app.log
if command -v gtk-sni-tray-standalone >/dev/null; then
  host="gtk-sni-tray-standalone"
  # In a session of its own: ended, it signals its whole process group,
  # which would otherwise be this script's.
  setsid gtk-sni-tray-standalone -w >"$OUT/tray-host.log" 2>&1 &
else
  host="tests/sniwatcher"
  "$WATCHER" >"$OUT/tray-host.log" 2>&1 &
fi
watcher=$!
watching() {
  [[ $(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.NameHasOwner org.kde.StatusNotifierWatcher 2>/dev/null) == "(true,)" ]]
}
for _ in $(seq 100); do watching && break; sleep 0.1; done
watching || fail "the tray host ($host) did not start: $(cat "$OUT/tray-host.log")"
registered() {
  gdbus call --session --dest org.kde.StatusNotifierWatcher --object-path /StatusNotifierWatcher \
    --method org.freedesktop.DBus.Properties.Get org.kde.StatusNotifierWatcher RegisteredStatusNotifierItems 2>/dev/null
}
port=$(freeport)
"$BIN" --addr "127.0.0.1:$port" >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do [[ -f $ep ]] && break; sleep 0.1; done
[[ -f $ep ]] || fail "no endpoint file after 10 s"
echo "smoke: b. serving on port $port, tray host $host"
# An item is listed as its bus name (gtk-sni-tray-standalone) or as its
# name and path (the stand-in): either way, the list is not empty.
for _ in $(seq 50); do [[ $(registered) == *"['"* ]] && break; sleep 0.1; done
[[ $(registered) == *"['"* ]] || fail "the tray icon did not register with the tray host: $(registered)"
echo "smoke: the tray icon registered: $(registered)"
grep -q 'mcptray lives in the tray' "$log" || fail "the log does not say mcptray lives in the tray"
sleep 1
[[ -z $(visible) ]] || fail "with a tray host the window showed unasked"
if [[ $host == gtk-sni-tray-standalone ]]; then
  # The icon, top left in the host's bar; a click opens the menu it drew.
  xdotool mousemove 12 15 click 1
  shot 01-tray-menu 1
  xdotool key Escape
  xdotool mousemove 700 700
fi

# The tray menu, over D-Bus (dbusmenu), as a tray host drives it.
name=org.kde.StatusNotifierItem-$pid-1
menu() { LC_ALL=C.UTF-8 gdbus call --session --dest "$name" --object-path /StatusNotifierMenu --method "com.canonical.dbusmenu.$1" "${@:2}"; }
layout=$(menu GetLayout -- 0 -1 '[]') || fail "no tray menu on D-Bus"
echo "$layout" | grep -q "Serving on http://127.0.0.1:$port/mcp" || fail "tray status line missing: $layout"
# item LABEL: the id of the shown (not hidden) menu item whose label starts
# with LABEL, or is LABEL without its last character when that is a ' (a read
# during an update may miss it: asked again for up to 3 s).
item() {
  local id
  for _ in $(seq 30); do
    layout=$(menu GetLayout -- 0 -1 '[]' 2>/dev/null || true)
    id=$(LABEL=$1 python3 -c '
import os, re, sys
for m in re.finditer(r"\((\d+), \{([^{}]*)\}", sys.stdin.read()):
    props = m.group(2)
    label = re.search(r"\x27label\x27: <\x27((?:[^\x27\\]|\\.)*)\x27>", props)
    want = os.environ["LABEL"]
    if not label or "\x27visible\x27: <false>" in props:
        continue
    # gdbus writes what is not ASCII as \uXXXX.
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda u: chr(int(u.group(1), 16)), label.group(1))
    if text == want[:-1] if want.endswith("\x27") else text.startswith(want):
        print(m.group(1)); break' <<<"$layout")
    [[ -n $id ]] && break
    sleep 0.1
  done
  echo "$id"
}
press() { menu Event -- "$1" clicked '<int32 0>' 0 >/dev/null; }
open=$(item 'Open mcptray')
[[ -n $open ]] || fail "no Open mcptray in the tray menu"
press "$open"
shown 5
[[ -n $win ]] || fail "the tray's Open mcptray showed no window"
# With a tray the window is a process of its own (mcptray window), which
# ends with it.
wpid=$(xdotool getwindowpid "$win" 2>/dev/null || true)
[[ -n $wpid && $wpid != "$pid" ]] || fail "the manager window is not in a process of its own (window pid ${wpid:-unknown}, server $pid)"
tr '\0' ' ' <"/proc/$wpid/cmdline" | grep -q ' window ' || fail "the window's process is not mcptray window: $(tr '\0' ' ' <"/proc/$wpid/cmdline")"
echo "smoke: the manager window runs in process $wpid (mcptray window), the server in $pid"
xdotool windowfocus --sync "$win" 2>/dev/null || true
shot 02-manager
# The window's size, now that it is laid out: what sits at its bottom or
# right is placed from there.
eval "$(xdotool getwindowgeometry --shell "$win")"
W=$WIDTH H=$HEIGHT
echo "smoke: the manager window is ${W}x$H"

# Below the menu bar, the tabs and the search box: the tool list's rows.
click 150 167 # the second tool
shot 03-tool-editor
changed 02-manager 03-tool-editor

click 148 $((H - 62)) # New tool, under the list (From an example… is below it)
sleep 0.5
click $((W * 56 / 100)) 132 # Name, the editor's first field
xdotool type --delay 20 'bad name!'
click $((W - 40)) $((H - 23)) # Save, bottom right
shot 04-invalid-name
changed 03-tool-editor 04-invalid-name

# Put it right and save with Ctrl+S: the tool lands in SQLite and is served.
click $((W * 56 / 100)) 132
xdotool key --window "$win" ctrl+a
xdotool type --delay 20 'smoke_tool'
sleep 0.3
click $((W * 56 / 100)) 320 # Description, once the name's error line is gone
xdotool type --delay 10 'Made by the smoke test.'
xdotool key --window "$win" ctrl+s
shot 04b-saved
changed 04-invalid-name 04b-saved
"$BIN" export --db "$db" | grep -q '"name": "smoke_tool"' || fail "the tool saved in the editor is not in the database"

# session TOKEN DB: an MCP session with the server on $port, as an AI
# client opens one (2025-11-25), with a new token of that name: sets url,
# tok (the token) and hdr (the headers every later request sends).
session() {
  url="http://127.0.0.1:$port/mcp"
  local sid
  tok=$("$BIN" token create "$1" --db "$2")
  hdr=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H "Authorization: Bearer $tok")
  sid=$(curl -sS -D - -o /dev/null "${hdr[@]}" "$url" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"smoke-client","version":"1"}}}' |
    tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
  [[ -n $sid ]] || fail "$1: initialize gave no session id"
  hdr+=(-H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25')
  curl -sS -o /dev/null "${hdr[@]}" "$url" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}
# An AI client calls a destructive tool: the approval window opens by itself.
session smoke-client "$db"
# approval N: calls clean_downloads in the background (call: its pid) and
# waits for its approval window (awin).
approval() {
  curl -sS "${hdr[@]}" "$url" -o "$OUT/approval-call-$1.txt" \
    -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"clean_downloads","arguments":{"days":30}}}' &
  call=$!
  awin=
  for _ in $(seq 100); do
    awin=$(xdotool search --onlyvisible --name '^mcptray .*approval' 2>/dev/null | head -1) && [[ -n $awin ]] && break
    sleep 0.1
  done
  [[ -n $awin ]] || fail "no approval window for a destructive tool (call $1)"
}
# answered N: the call's answer within 10 s.
answered() {
  for _ in $(seq 100); do kill -0 "$call" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$call" 2>/dev/null && { kill "$call" 2>/dev/null; fail "call $1 got no answer"; }
  wait "$call" 2>/dev/null || true
  echo "smoke: call $1 answered: $(head -c 300 "$OUT/approval-call-$1.txt")"
}
approval 1
[[ $(xdotool getwindowpid "$awin" 2>/dev/null) == "$wpid" ]] || fail "the approval window is not in the window process $wpid"
shot 05-approval-dialog
# The tray says a question waits, and its line brings the question up.
question=$(item 'A question is waiting for you')
[[ -n $question ]] || fail "no question line in the tray menu while the approval waits"
press "$question"
# Deny has the focus for a destructive tool: Space presses it.
xdotool key --window "$awin" space
answered 1
grep -q 'denied running' "$OUT/approval-call-1.txt" || fail "Space on the approval did not deny: $(cat "$OUT/approval-call-1.txt")"

# Closing the manager window closes it for good, and its process, holding
# nothing more, ends; mcptray goes on serving. The keys go to the focused
# window as a keyboard's do (XTEST), not sent to the window's id: a
# reopened window may get the same id, and under Xvfb the Ctrl+W sent to
# the old one then reached it too, closing it again.
xdotool windowfocus --sync "$win" || fail "could not focus the manager window"
xdotool key ctrl+w # File ▸ Close window
for _ in $(seq 30); do xdotool search --onlyvisible --name '^mcptray$' >/dev/null 2>&1 || break; sleep 0.1; done
xdotool search --onlyvisible --name '^mcptray$' >/dev/null 2>&1 && fail "closing the manager window did not close it"
for _ in $(seq 50); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$wpid" 2>/dev/null && fail "the window process $wpid still runs 5 s after its last window closed"
echo "smoke: closing the window ended its process"
curl -fsS -o /dev/null "${hdr[@]}" "$url" -d '{"jsonrpc":"2.0","id":9,"method":"ping"}' || fail "not serving after the window closed"

# The serving process never drew: no connection to the X server, no GL
# driver mapped (the dispatch libraries libGL/libGLX are linked into the
# program; the driver — Mesa's, here — loads only with a GL context).
drivers=$(awk '{print $6}' "/proc/$pid/maps" | grep -E 'dri|gallium|swrast|llvmpipe|libGLX_|libLLVM|nvidia|libEGL_mesa' | sort -u || true)
[[ -z $drivers ]] || fail "a GL driver is mapped in the serving process: $drivers"
mine=$(find "/proc/$pid/fd" -lname 'socket:*' -printf '%l\n' 2>/dev/null | tr -dc '0-9\n' | sort -u)
xpeers=$(ss -xn 2>/dev/null | awk '$5 ~ /X11-unix/ {print $8}' | sort -u)
xconn=$(comm -12 <(echo "$mine") <(echo "$xpeers") | grep . || true)
[[ -z $xconn ]] || fail "the serving process has a connection to the X server (socket $xconn)"
[[ -n $xpeers ]] || fail "ss shows no client of the X server: the check above proves nothing"
echo "smoke: the serving process holds no X connection and no GL driver"

# The window process killed while an approval waits: the AI app is told
# nobody answered, and the next approval opens a window all the same.
approval 2
apid=$(xdotool getwindowpid "$awin")
kill -9 "$apid"
answered 2
grep -q 'Nobody at the computer answered' "$OUT/approval-call-2.txt" || fail "the call whose window died got: $(cat "$OUT/approval-call-2.txt")"
approval 3
[[ $(xdotool getwindowpid "$awin") != "$apid" ]] || fail "the next approval showed in the killed process"
xdotool key --window "$awin" space
answered 3
for _ in $(seq 50); do xdotool search --onlyvisible --name '^mcptray .*approval' >/dev/null 2>&1 || break; sleep 0.1; done

# A second launch shows the running app's window (it hands over and ends).
timeout 20 "$BIN" >"$OUT/second-launch.log" 2>&1 || fail "a second launch failed: $(cat "$OUT/second-launch.log")"
grep -q "its window is shown" "$OUT/second-launch.log" || fail "the second launch said: $(cat "$OUT/second-launch.log")"
shown 10
[[ -n $win ]] || fail "a second launch did not show the manager window"
wpid=$(xdotool getwindowpid "$win")
echo "smoke: a second launch showed the running app's window (process $wpid)"

# A long call runs as a task (2026-07-28, tasks extension): the tray lists
# it, and the task window shows it with its progress. The tool comes from
# another process's import, which the running app picks up like any
# catalog change.
cat >"$OUT/smoke-task.json" <<'JSON'
{"format": "mcptray-catalog", "version": 1, "tools": [{
  "name": "sync_photos", "title": "Sync photos", "description": "Pretends to sync photo folders, slowly.",
  "taskMode": "optional",
  "action": {"respond": {"steps": [
    {"progress": {"progress": 3, "total": 10, "message": "synced 3 of 10 folders"}},
    {"delayMs": 60000, "progress": {"progress": 10, "total": 10}}],
    "content": [{"type": "text", "text": "synced"}]}}}]}
JSON
# Tray items keep their ids while their labels change (a click on what the
# host showed is never lost): the task window's line, before and after.
tasks=$(item "Open the task window'")
[[ -n $tasks ]] || fail "no Open the task window in the tray menu"
"$BIN" import "$OUT/smoke-task.json" --merge --db "$db" >/dev/null || fail "importing the task tool"
v=2026-07-28
task=
for _ in $(seq 30); do
  task=$(curl -sS -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Authorization: Bearer $tok" -H "MCP-Protocol-Version: $v" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: sync_photos' "$url" \
    -d '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sync_photos","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"'$v'","io.modelcontextprotocol/clientInfo":{"name":"smoke-client","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}' |
    grep -oP '"taskId":"\K[^"]+' | head -1) && [[ -n $task ]] && break
  sleep 0.2 # until the app has seen the import
done
[[ -n $task ]] || fail "the slow tool did not start a task"
echo "smoke: task $task running"
line=$(item 'Sync photos — 30% · synced 3 of 10 folders')
[[ -n $line ]] || fail "the tray menu does not show the task by its title and progress: $layout"
[[ -n $(item "Serving on http://127.0.0.1:$port/mcp · 1 task running") ]] || fail "the tray's status line does not count the task: $layout"
[[ $(item "Open the task window'") == "$tasks" ]] || fail "the tray's items changed ids when a task started"
press "$tasks"
for _ in $(seq 50); do xdotool search --onlyvisible --name '^mcptray .*tasks$' >/dev/null 2>&1 && break; sleep 0.1; done
twin=$(xdotool search --onlyvisible --name '^mcptray .*tasks$' | head -1)
[[ -n $twin && $(xdotool getwindowpid "$twin") == "$wpid" ]] || fail "the task window did not open in the window process $wpid"
shot 06-task-window 1.5

# The window follows what other processes write (issue 28): a token made
# and a secret set from the command line show in Settings within 2 s,
# waited for as a change on the screen (shot again until it differs).
# appears NAME BASE WHAT: the screen, shot as NAME until it differs from
# BASE, changes within 2 s of $since (when WHAT was written).
appears() {
  local d n ms
  while :; do
    import -window root "$OUT/$1.png"
    d=$(compare -metric AE "$OUT/$2.png" "$OUT/$1.png" null: 2>&1 || true)
    n=$(printf '%.0f' "${d%% *}" 2>/dev/null) || n=0
    ms=$((($(date +%s%N) - since) / 1000000))
    ((n > 300)) && break
    ((ms <= 2000)) || fail "$3 did not show in the window within 2 s"
  done
  echo "smoke: $3 showed in the window $ms ms after it was written ($n pixels changed)"
}
xdotool windowraise "$win"
xdotool windowfocus --sync "$win" 2>/dev/null || true
xdotool key --window "$win" ctrl+6 # Settings
xdotool mousemove 1 1
shot 08-settings 1
"$BIN" token create tester --db "$db" >/dev/null || fail "mcptray token create"
since=$(date +%s%N)
appears 08b-settings-token 08-settings "the token made by mcptray token create"
# A secret set from the command line: the tool that reads it, imported
# from another process too, stops saying it needs one. (The Settings
# tab's secrets list, further down, follows the same feed: app's
# TestSettingsListsFollowOtherWriters.)
cat >"$OUT/smoke-secret.json" <<'JSON'
{"format": "mcptray-catalog", "version": 1, "tools": [{
  "name": "weather_now", "title": "Weather now", "description": "Asks a weather API with a key.",
  "action": {"http": {"url": "https://api.example.com/weather", "headers": {"X-Api-Key": "{{secret \"weather_key\"}}"}}}}]}
JSON
xdotool key --window "$win" ctrl+1 # Tools
xdotool key --window "$win" ctrl+f
xdotool type --delay 20 'weather_now'
xdotool mousemove 1 1
shot 09-tools 1
"$BIN" import "$OUT/smoke-secret.json" --merge --db "$db" >/dev/null || fail "importing the tool that reads a secret"
since=$(date +%s%N)
appears 09b-tool-needs-secret 09-tools "the tool imported by mcptray import, needing a secret"
printf 'k3y' | "$BIN" secret set weather_key --db "$db" >/dev/null || fail "mcptray secret set"
since=$(date +%s%N)
appears 09c-tool-has-secret 09b-tool-needs-secret "the secret set by mcptray secret set"
# Try it on a tool that runs in the background (sync_photos, imported
# above, runs as a task when the AI app can follow one): its progress
# shows, and Cancel cancels the task, which Activity records as cancelled.
xdotool key --window "$win" ctrl+f
xdotool key --window "$win" ctrl+a
xdotool type --delay 20 'sync_photos'
click 150 127 # the one tool listed
shot 10-tool-editor 1
click $((W - 118)) $((H - 23)) # Try it, left of Save (Delete is at the left end)
shot 10b-try-it 1
changed 10-tool-editor 10b-try-it
click 500 349 # Run
# The event: the tray counts a second task running (the curl one above
# runs for a minute).
[[ -n $(item "Serving on http://127.0.0.1:$port/mcp · 2 tasks running") ]] || fail "Try it's call did not run as a task: $layout"
shot 10c-try-it-running 1.5
changed 10b-try-it 10c-try-it-running
click 580 349 # Cancel, right of Run
[[ -n $(item "Serving on http://127.0.0.1:$port/mcp · 1 task running") ]] || fail "Try it's Cancel did not end its task: $layout"
shot 10d-try-it-cancelled 1
cancelled=
for _ in $(seq 100); do
  cancelled=$("$BIN" activity --tool sync_photos --outcome cancelled --db "$db" 2>/dev/null | grep -i cancelled || true)
  [[ -n $cancelled ]] && break
  sleep 0.1
done
[[ -n $cancelled ]] || fail "Activity does not say Try it's task was cancelled: $("$BIN" activity --tool sync_photos --db "$db" 2>&1)"
echo "smoke: Try it ran sync_photos as a task, its progress shown, and Cancel cancelled it: $cancelled"

# A tool made from curl is highlighted in the list once created, not the
# tool open before: the search lists both, the first one open now.
# rowcolour SHOT Y: the colour of the list's row at Y (window
# coordinates), between its check and its text.
rowcolour() { "$convert" "$OUT/$1.png" -crop "1x1+$((X + 37))+$((Y + $2))" -format '%[pixel:p{0,0}]' info:; }
eval "$(xdotool getwindowgeometry --shell "$win")"
highlight=$(rowcolour 10d-try-it-cancelled 127)
plain=$(rowcolour 10d-try-it-cancelled 167)
[[ $highlight != "$plain" ]] || fail "the open tool's row ($highlight) does not look highlighted"
click 27 13 # File
xdotool key --window "$win" Down Down Down Return # New tool from curl…
sleep 0.5
xdotool type --delay 10 'curl https://api.example.com/v1/items'
click 490 365 # Tool name
xdotool key --window "$win" ctrl+a
xdotool type --delay 20 'sync_photos_copy'
shot 11-curl 0.5
click 538 581 # Create tool
shot 11b-curl-created 1
changed 11-curl 11b-curl-created
[[ $(rowcolour 11b-curl-created 167) == "$highlight" && $(rowcolour 11b-curl-created 127) != "$highlight" ]] ||
  fail "after Create tool from curl the list does not highlight the new tool (row 1 $(rowcolour 11b-curl-created 127), row 2 $(rowcolour 11b-curl-created 167); highlighted is $highlight)"
"$BIN" export --db "$db" | grep -q '"name": "sync_photos_copy"' || fail "the tool made from curl is not in the database"
echo "smoke: after Create tool from curl the list highlights the new tool"

# Connect a client…: the Connect window, on the first client.
connect=$(item 'Connect a client…')
[[ -n $connect ]] || fail "no Connect a client… in the tray menu"
press "$connect"
for _ in $(seq 50); do xdotool search --onlyvisible --name '^Connect Claude Desktop$' >/dev/null 2>&1 && break; sleep 0.1; done
xdotool search --onlyvisible --name '^Connect Claude Desktop$' >/dev/null 2>&1 || fail "no Connect window for Claude Desktop"
shot 07-connect-client 1.5

# Quit from the tray: the server stops cleanly, the endpoint file goes, and
# the window process goes with it.
quit=$(item "Quit'")
[[ -n $quit ]] || fail "no Quit in the tray menu"
press "$quit"
quits "the tray's Quit"
for _ in $(seq 50); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$wpid" 2>/dev/null && fail "the window process $wpid outlived the tray's Quit"
if grep -q 'no menu item with ID' "$log"; then fail "a tray click was lost: $(grep 'no menu item with ID' "$log")"; fi
if grep -q 'Children but no menu' "$OUT/tray-host.log"; then fail "the tray host drew a submenu empty: $(grep -c 'Children but no menu' "$OUT/tray-host.log") times"; fi
# ------------------------------------------------------- c. the light theme
# The light theme's colours must read as well as the dark's (issue 28): its
# Activity tab and a question window against their golden images, on a
# database of their own, so that the log is empty and the run alike.
log=$OUT/app-light.log
port=$(freeport)
ldb=$HOME/light/mcptray.db # HOME is the smoke's fresh work folder
mkdir -p "$(dirname "$ldb")"
# The question shows the line clean_downloads runs: the program and the
# home folder, which differ with each checkout and work folder, are named
# here as on a person's computer, so that the image is alike on every run
# (the call is denied: nothing runs).
sed -e 's|{{\.server\.executable}}|/home/jane/.local/bin/mcptray|g' -e 's|{{\.server\.home}}|/home/jane|g' \
  examples/starter.json >"$HOME/light/starter.json"
"$BIN" import "$HOME/light/starter.json" --db "$ldb" >/dev/null || fail "the light theme: the starter catalog was not imported"
FYNE_THEME=light "$BIN" --open --addr "127.0.0.1:$port" --db "$ldb" >"$log" 2>&1 &
pid=$!
shown 15
[[ -n $win ]] || fail "the light theme: no window 15 s after the start"
# A first start on this database: the welcome, if any, goes with Escape.
sleep 1
xdotool key --window "$win" Escape
sleep 0.3
xdotool mousemove 1 1
xdotool key --window "$win" ctrl+5 # Activity
shot c-01-light-activity
golden c-01-light-activity # empty: this database's log has nothing yet
session smoke-light "$ldb"
approval light
xdotool mousemove 1 1
shot c-02-light-question 1
golden c-02-light-question
xdotool key --window "$awin" space # Deny, which has the focus
answered light
xdotool key --window "$win" ctrl+q
sleep 0.5
# Quitting asks first without a tray: Return quits.
xdotool key Return
quits "the light theme's Quit"

echo "smoke: ok (screenshots in $OUT)"
