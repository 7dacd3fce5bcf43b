#!/usr/bin/env bash
# Smoke test of the desktop app under Xvfb: starts the real binary on a fresh
# database, waits for its endpoint, drives the manager window (and the tray
# menu over D-Bus), writes screenshots and checks that Quit stops it cleanly.
#
#   scripts/smoke.sh [OUTDIR]     (default OUTDIR: smoke-shots)
#
# Needs xvfb-run, xdotool, ImageMagick's import, dbus-run-session and gdbus
# (make smoke installs them). MCPTRAY_BIN names the binary (default bin/mcptray).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=$(realpath -m "${1:-smoke-shots}")
BIN=$(realpath "${MCPTRAY_BIN:-bin/mcptray}")

if [[ -z ${SMOKE_INNER:-} ]]; then
  mkdir -p "$OUT"
  rm -f "$OUT"/*.png "$OUT"/*.log
  # A fresh home: a new database (first start), and nothing the session bus
  # activates (the keyring) touches the real one.
  work=$(mktemp -d)
  trap 'rm -rf "$work" 2>/dev/null || true' EXIT
  export HOME=$work XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
  export SMOKE_INNER=1 LANG=en_US.UTF-8 MCPTRAY_BIN=$BIN
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- bash "$0" "$OUT" 2> >(grep -v '^dbus-daemon' >&2)
  exit
fi

pid=
cleanup() { if [[ -n $pid ]]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi; true; }
trap cleanup EXIT
fail() {
  echo "smoke: FAIL: $*" >&2
  echo "--- app log" >&2
  cat "$OUT/app.log" >&2 || true
  import -window root "$OUT/failure.png" 2>/dev/null || true
  exit 1
}
shot() { sleep "${2:-0.8}"; import -window root "$OUT/$1.png"; echo "smoke: $OUT/$1.png"; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" --open --addr "127.0.0.1:$port" >"$OUT/app.log" 2>&1 &
pid=$!

ep=$XDG_CONFIG_HOME/mcptray/endpoint.json
for _ in $(seq 100); do [[ -f $ep ]] && break; sleep 0.1; done
[[ -f $ep ]] || fail "no endpoint file after 10 s"
echo "smoke: serving on port $port"

win=
for _ in $(seq 50); do
  win=$(xdotool search --name '^mcptray$' 2>/dev/null | head -1) && [[ -n $win ]] && break
  sleep 0.2
done
[[ -n $win ]] || fail "the manager window did not open"
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

# First start: the welcome dialog over the manager; Escape dismisses it.
shot 01-welcome 1.5
xdotool windowfocus --sync "$win" 2>/dev/null || true
xdotool key --window "$win" Escape
shot 02-manager
changed 01-welcome 02-manager
# The window's size, now that it is laid out: what sits at its bottom or
# right is placed from there.
eval "$(xdotool getwindowgeometry --shell "$win")"
W=$WIDTH H=$HEIGHT
echo "smoke: the manager window is ${W}x$H"

# Below the menu bar, the tabs and the search box: the tool list's rows.
click 150 167 # the second tool
shot 03-tool-editor
changed 02-manager 03-tool-editor

click 148 $((H - 23)) # New tool, under the list
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
"$BIN" export --db "$XDG_CONFIG_HOME/mcptray/mcptray.db" | grep -q '"name": "smoke_tool"' || fail "the tool saved in the editor is not in the database"

# An AI client calls a destructive tool: the approval window opens by itself.
url="http://127.0.0.1:$port/mcp"
tok=$("$BIN" token create smoke-client --db "$XDG_CONFIG_HOME/mcptray/mcptray.db")
hdr=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H "Authorization: Bearer $tok")
sid=$(curl -sS -D - -o /dev/null "${hdr[@]}" "$url" \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"smoke-client","version":"1"}}}' |
  tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
[[ -n $sid ]] || fail "initialize gave no session id"
hdr+=(-H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25')
curl -sS -o /dev/null "${hdr[@]}" "$url" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
curl -sS "${hdr[@]}" "$url" -o "$OUT/approval-call.txt" \
  -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"clean_downloads","arguments":{"days":30}}}' &
call=$!
awin=
for _ in $(seq 50); do
  awin=$(xdotool search --name '^mcptray .' 2>/dev/null | head -1) && [[ -n $awin ]] && break
  sleep 0.2
done
[[ -n $awin ]] || fail "no approval window for a destructive tool"
shot 05-approval-dialog
# Deny has the focus for a destructive tool: Space presses it.
xdotool key --window "$awin" space
for _ in $(seq 50); do kill -0 "$call" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$call" 2>/dev/null; then
  kill "$call" 2>/dev/null || true
  echo "smoke: note: the approval was not answered by Space (call cancelled)"
else
  echo "smoke: the call after Deny: $(head -c 300 "$OUT/approval-call.txt")"
fi
wait "$call" 2>/dev/null || true

# The tray menu, over D-Bus (dbusmenu), as a tray host would drive it.
name=org.kde.StatusNotifierItem-$pid-1
layout=$(gdbus call --session --dest "$name" --object-path /StatusNotifierMenu \
  --method com.canonical.dbusmenu.GetLayout -- 0 -1 '[]') || fail "no tray menu on D-Bus"
echo "$layout" | grep -q "Serving on http://127.0.0.1:$port/mcp" || fail "tray status line missing: $layout"
# item LABEL-PREFIX: the id of the menu item whose label starts so, in the
# menu as it is now (ids change whenever the app redraws the menu, and a
# read during a redraw may miss it: asked again for up to 3 s).
item() {
  local id
  for _ in $(seq 30); do
    layout=$(gdbus call --session --dest "$name" --object-path /StatusNotifierMenu \
      --method com.canonical.dbusmenu.GetLayout -- 0 -1 '[]' 2>/dev/null || true)
    id=$({ echo "$layout" | grep -oP "\(\K\d+(?=, \{[^}]*'label': <'$1)" || true; } | head -1)
    [[ -n $id ]] && break
    sleep 0.1
  done
  echo "$id"
}
# A long call runs as a task (2026-07-28, tasks extension): the task window
# shows it with its progress. The tool comes from another process's import,
# which the running app picks up like any catalog change.
db=$XDG_CONFIG_HOME/mcptray/mcptray.db
cat >"$OUT/smoke-task.json" <<'JSON'
{"format": "mcptray-catalog", "version": 1, "tools": [{
  "name": "sync_photos", "title": "Sync photos", "description": "Pretends to sync photo folders, slowly.",
  "taskMode": "optional",
  "action": {"respond": {"steps": [
    {"progress": {"progress": 3, "total": 10, "message": "synced 3 of 10 folders"}},
    {"delayMs": 60000, "progress": {"progress": 10, "total": 10}}],
    "content": [{"type": "text", "text": "synced"}]}}}]}
JSON
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
tasks=$(item "Open the task window'")
[[ -n $tasks ]] || fail "no Open the task window in the tray menu"
gdbus call --session --dest "$name" --object-path /StatusNotifierMenu \
  --method com.canonical.dbusmenu.Event -- "$tasks" clicked '<int32 0>' 0 >/dev/null
shot 06-task-window 1.5

# Connect a client ▸ Claude Desktop (the first client) ▸ Install…: the
# Connect window with the change to its config file.
install=$(item 'Install') # (gdbus escapes the ellipsis)
[[ -n $install ]] || fail "no Connect a client ▸ … ▸ Install… in the tray menu"
gdbus call --session --dest "$name" --object-path /StatusNotifierMenu \
  --method com.canonical.dbusmenu.Event -- "$install" clicked '<int32 0>' 0 >/dev/null
shot 07-connect-client 1.5
xdotool search --name '^Connect Claude Desktop$' >/dev/null 2>&1 || fail "no Connect window for Claude Desktop"

# Closing the manager window hides it and keeps serving; launching mcptray
# again shows it (the second launch hands over to the running app and ends).
xdotool windowfocus --sync "$win" 2>/dev/null || true
xdotool key --window "$win" ctrl+w # File ▸ Close window
for _ in $(seq 30); do xdotool search --onlyvisible --name '^mcptray$' >/dev/null 2>&1 || break; sleep 0.1; done
xdotool search --onlyvisible --name '^mcptray$' >/dev/null 2>&1 && fail "closing the manager window did not hide it"
curl -fsS -o /dev/null "${hdr[@]}" "$url" -d '{"jsonrpc":"2.0","id":9,"method":"ping"}' || fail "not serving after the window closed"
timeout 20 "$BIN" >"$OUT/second-launch.log" 2>&1 || fail "a second launch failed: $(cat "$OUT/second-launch.log")"
grep -q "its window is shown" "$OUT/second-launch.log" || fail "the second launch said: $(cat "$OUT/second-launch.log")"
for _ in $(seq 30); do xdotool search --onlyvisible --name '^mcptray$' >/dev/null 2>&1 && break; sleep 0.1; done
xdotool search --onlyvisible --name '^mcptray$' >/dev/null 2>&1 || fail "a second launch did not show the manager window"
echo "smoke: a second launch showed the running app's window"

# Quit from the tray: the server stops cleanly and the endpoint file goes.
quit=$(item "Quit'")
[[ -n $quit ]] || fail "no Quit in the tray menu"
gdbus call --session --dest "$name" --object-path /StatusNotifierMenu \
  --method com.canonical.dbusmenu.Event -- "$quit" clicked '<int32 0>' 0 >/dev/null
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "still running 10 s after Quit"
wait "$pid" || fail "exit status $? after Quit"
pid=
[[ -f $ep ]] && fail "the endpoint file outlived Quit"
if grep -q 'Error in Fyne call thread' "$OUT/app.log"; then fail "UI touched off the Fyne thread"; fi
echo "smoke: ok (screenshots in $OUT)"
