package main

// Fuzz targets for the shim's hand-written readers and encoders: the stdin
// line reader (and the id it finds in an over-long line), the SSE relay,
// and the Mcp-Name / Mcp-Param header encoding. `make fuzz` runs each for
// FUZZTIME; `make test` for a few seconds. Seeds are in
// testdata/fuzz/<target>/.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{\"id\":1}\n{\"id\":2}\n"), uint16(64))
	f.Add([]byte("\xef\xbb\xbf{\"id\":\"a\"}\r\n"), uint16(8))
	f.Add([]byte(strings.Repeat("x", 300)+"\nshort\n"), uint16(100))
	f.Add([]byte("no newline at the end"), uint16(5))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		lim := int(limit)%512 + 1
		// A tiny buffer, so that lines span many of its fills.
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		rest := data
		for len(rest) > 0 {
			line, long, err := readLine(r, lim)
			if err != nil && err != io.EOF {
				t.Fatalf("reading from memory: %v", err)
			}
			want := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				want = rest[:i+1]
			}
			rest = rest[len(want):]
			switch {
			case long != (len(want) > lim):
				t.Fatalf("a %d-byte line read as long=%v against a limit of %d", len(want), long, lim)
			case !long && !bytes.Equal(line, want):
				t.Fatalf("read %q, want %q", line, want)
			case long && !bytes.HasPrefix(want, line):
				t.Fatalf("the head %q kept of a long line is not its start", line)
			case long && len(line) > headKeep:
				t.Fatalf("kept %d bytes of a long line, more than %d", len(line), headKeep)
			}
			if err == io.EOF {
				break
			}
		}
		if len(rest) > 0 {
			t.Fatalf("stopped with %d bytes unread", len(rest))
		}
	})
}

func FuzzIDIn(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"`))
	f.Add([]byte(`{"method":"a","id":"abc`))
	f.Add([]byte(`{"params":{"id":3},"id":"outer"}`))
	f.Add([]byte("\xef\xbb\xbf {\"id\":1e999}"))
	f.Add([]byte(`[{"id":1}]`))
	f.Fuzz(func(t *testing.T, head []byte) {
		id := idIn(head)
		var v any
		if err := json.Unmarshal(id, &v); err != nil {
			t.Fatalf("id %q is not JSON: %v", id, err)
		}
		switch v.(type) {
		case nil, string, float64:
		default:
			t.Fatalf("id %q is neither null, a string nor a number", id)
		}
	})
}

func FuzzReadSSE(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"))
	f.Add([]byte("data: {\"a\":\r\ndata: 1}\r\n\r\n: keep-alive\n\ndata: [1,\n"))
	f.Add([]byte("data:{\"text\":\"line\\nbreak\"}\n\ndata: not json\n\n"))
	f.Add([]byte("id: 3\nretry: 10\ndata: \n\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		var out bytes.Buffer
		b := newBridge(config{}, nil, &out, io.Discard)
		var relayed int
		b.readSSE(bytes.NewReader(stream), func([]byte) { relayed++ }, false)
		// Everything that reaches the client is one JSON message a line.
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if out.Len() == 0 {
			lines = nil
		}
		for _, l := range lines {
			if !json.Valid(l) {
				t.Fatalf("relayed a line that is not JSON: %q", l)
			}
		}
		if len(lines) != relayed {
			t.Fatalf("%d lines written, %d messages reported relayed", len(lines), relayed)
		}
	})
}

func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"get_weather", " padded ", "naïve", "=?base64?eA==?=", "line\r\nX-Evil: 1", "", "\x00", "日本語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := headerValue(s)
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				t.Fatalf("header value %q holds byte 0x%02x", v, v[i])
			}
		}
		if strings.TrimSpace(v) != v || v == "" {
			t.Fatalf("header value %q would lose its blanks in transit", v)
		}
		got := v
		if inner, ok := strings.CutPrefix(v, "=?base64?"); ok && strings.HasSuffix(inner, "?=") {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(inner, "?="))
			if err != nil {
				t.Fatalf("header value %q is not decodable: %v", v, err)
			}
			got = string(b)
		}
		if got != s {
			t.Fatalf("%q encoded as %q decodes to %q", s, v, got)
		}
	})
}
