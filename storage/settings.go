package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcptray/mcptray/catalog"
)

// Settings returns catalog.DefaultSettings overlaid with the stored
// settings. Settings are stored one row per field, keyed by the field's JSON
// name; a stored key this binary does not know, or a value it cannot decode,
// is ignored, so databases written by other versions still load.
func (s *Store) Settings(ctx context.Context) (catalog.Settings, error) {
	set := catalog.DefaultSettings()
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM settings ORDER BY key`)
	if err != nil {
		return set, fmt.Errorf("read settings: %w", err)
	}
	defer rows.Close()
	known := settingsKeys()
	for rows.Next() {
		var key string
		var value []byte
		if err := rows.Scan(&key, &value); err != nil {
			return set, fmt.Errorf("read settings: %w", err)
		}
		if !known[key] {
			continue
		}
		obj, err := json.Marshal(map[string]json.RawMessage{key: json.RawMessage(value)})
		if err != nil {
			continue
		}
		next := set
		if json.Unmarshal(obj, &next) == nil {
			set = next
		}
	}
	if err := rows.Err(); err != nil {
		return set, fmt.Errorf("read settings: %w", err)
	}
	return set, nil
}

// PutSettings validates and stores every field of set; invalid settings
// are a *catalog.ValidationError. Stored keys this
// binary does not know are left alone.
func (s *Store) PutSettings(ctx context.Context, set catalog.Settings) error {
	if err := set.Validate(); err != nil {
		return err
	}
	fields, err := settingsFields(set)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		at := now()
		for key, value := range fields {
			_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
				key, string(value), at)
			if err != nil {
				return fmt.Errorf("write setting %s: %w", key, err)
			}
		}
		return nil
	})
}

// settingsFields encodes each field of set under its JSON name, empty values
// included (so clearing a field is stored, not skipped by omitempty).
func settingsFields(set catalog.Settings) (map[string]json.RawMessage, error) {
	v := reflect.ValueOf(set)
	out := make(map[string]json.RawMessage, v.NumField())
	for _, f := range reflect.VisibleFields(v.Type()) {
		key := jsonName(f)
		if key == "" {
			continue
		}
		b, err := json.Marshal(v.FieldByIndex(f.Index).Interface())
		if err != nil {
			return nil, fmt.Errorf("encode setting %s: %w", key, err)
		}
		out[key] = b
	}
	return out, nil
}

// settingsKeys is the set of JSON names of catalog.Settings' fields.
func settingsKeys() map[string]bool {
	known := make(map[string]bool)
	for _, f := range reflect.VisibleFields(reflect.TypeFor[catalog.Settings]()) {
		if key := jsonName(f); key != "" {
			known[key] = true
		}
	}
	return known
}

// jsonName is the JSON object key of an exported struct field, "" if the
// field is not encoded.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() || f.Anonymous {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return name
}
