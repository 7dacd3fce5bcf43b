package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
)

// settingsCmd shows the settings, or changes some: `settings set
// key=value…`, where a value is JSON when it parses as JSON (numbers,
// arrays, true/false) and a string otherwise. A running server applies the
// change at once, but for the port and the ask policy, which are read when
// mcptray starts (the app's Settings tab moves a running server's port).
func settingsCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("settings")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 && (pos[0] != "set" || len(pos) == 1) {
		return usageError{"usage: mcptray settings [set KEY=VALUE ...]"}
	}
	return withStore(*db, func(st *storage.Store) error {
		cur, err := st.Settings(ctx)
		if err != nil {
			return err
		}
		if len(pos) > 1 {
			if cur, err = applySettings(cur, pos[1:]); err != nil {
				return err
			}
			if err := st.PutSettings(ctx, cur); err != nil {
				return err
			}
		}
		b, err := json.MarshalIndent(cur, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
		return err
	})
}

// applySettings sets key=value pairs on a copy of s, rejecting unknown keys.
func applySettings(s catalog.Settings, pairs []string) (catalog.Settings, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return s, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return s, err
	}
	known := settingKeys()
	given := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return s, usageError{fmt.Sprintf("%q: want KEY=VALUE", p)}
		}
		if !slices.Contains(known, k) {
			return s, usageError{fmt.Sprintf("unknown setting %q; known: %s", k, strings.Join(known, ", "))}
		}
		given[k] = v
		if json.Valid([]byte(v)) {
			m[k] = json.RawMessage(v)
		} else {
			m[k], _ = json.Marshal(v)
		}
	}
	b, _ = json.Marshal(m)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var out catalog.Settings
	if err := dec.Decode(&out); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return s, fmt.Errorf("%s=%s: must be %s", te.Field, given[te.Field], kindName(te.Type))
		}
		return s, fmt.Errorf("settings: %w", err)
	}
	return out, nil
}

// kindName says what a setting of type t is written as.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return `a JSON array, e.g. ["a","b"]`
	default:
		return "text"
	}
}

// settingKeys lists the JSON names of the settings fields.
func settingKeys() []string {
	var keys []string
	t := reflect.TypeFor[catalog.Settings]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	slices.Sort(keys)
	return keys
}
