package mcpcore

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ParseCatalog decodes a catalog document strictly — an unknown field is an
// error, so a typo never silently drops part of a definition — and validates
// it. A *ValidationError lists every problem.
func ParseCatalog(data []byte) (*Catalog, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Catalog
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("reading catalog JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("reading catalog JSON: unexpected data after the catalog object")
	}
	if c.Format != CatalogFormat {
		return nil, fmt.Errorf("reading catalog JSON: \"format\" must be %q (got %q)", CatalogFormat, c.Format)
	}
	if c.Version < 1 {
		return nil, fmt.Errorf("reading catalog JSON: \"version\" must be %d", CatalogVersion)
	}
	if err := ValidateCatalog(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// MarshalCatalog encodes a catalog in its documented form, indented for
// people and version control.
func MarshalCatalog(c *Catalog) ([]byte, error) {
	out := *c
	out.Format, out.Version = CatalogFormat, CatalogVersion
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding catalog: %w", err)
	}
	return append(b, '\n'), nil
}
