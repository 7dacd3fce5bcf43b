package actions

import "bytes"

// Redact, then cut: output is capped (maxOutputBytes, maxBytes, the length
// of a streamed line), and a cap applied before redaction could cut a
// secret in two and let its beginning through. So every cap goes through
// redactCut, which sees the secrets whole: readers keep lookahead() bytes
// past the cap, and a secret that starts before the cut is replaced whole.

// lookahead is how many bytes past a cap must be kept so that any secret
// starting before the cut is seen whole: the longest secret, less one.
func (d *Data) lookahead() int {
	if d == nil {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for v := range d.used {
		n = max(n, len(v)-1)
	}
	return n
}

// redactCut redacts raw and keeps what stands for its first limit bytes:
// text before the cut as it is, each secret that starts before the cut as
// "[secret:NAME]" (whole, even when it ends past the cut), nothing that
// starts at or after it. raw must hold lookahead() bytes past limit when
// the output went on. It reports whether anything was cut.
func (d *Data) redactCut(raw []byte, limit int) ([]byte, bool) {
	cut := len(raw) > limit
	if d == nil {
		return raw[:min(len(raw), limit)], cut
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.used) == 0 {
		return raw[:min(len(raw), limit)], cut
	}
	// The secrets are found first and the output built after, in a
	// buffer of its exact size: the output may be megabytes, which a
	// buffer growing as it goes would copy again and again.
	type match struct {
		at        int
		val, mark string
	}
	var found []match
	end := min(len(raw), limit)
	size := 0
	i := 0
	for i < end {
		// The earliest secret at or after i; the longest when several
		// start there.
		at, val := -1, ""
		for v := range d.used {
			j := bytes.Index(raw[i:], []byte(v))
			if j < 0 {
				continue
			}
			j += i
			if at < 0 || j < at || j == at && len(v) > len(val) {
				at, val = j, v
			}
		}
		if at < 0 || at >= limit {
			break
		}
		m := match{at: at, val: val, mark: "[secret:" + d.used[val] + "]"}
		found = append(found, m)
		size += at - i + len(m.mark)
		i = at + len(val)
	}
	size += max(end-i, 0)
	out := make([]byte, 0, size)
	i = 0
	for _, m := range found {
		out = append(out, raw[i:m.at]...)
		out = append(out, m.mark...)
		i = m.at + len(m.val)
	}
	if i < end {
		out = append(out, raw[i:end]...)
	}
	return out, cut
}
