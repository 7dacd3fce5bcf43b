package actions

import (
	"encoding/base64"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Validate lists the problems of one block.
func ValidateContent(c catalog.Content, tc *TemplateChecks) []Problem {
	var ps []Problem
	check := func(field string, t catalog.Template) {
		if err := tc.check(t); err != nil {
			ps = append(ps, problemf(field, "%v", err))
		}
	}
	check("text", c.Text)
	check("data", c.Data)
	check("file", c.File)
	check("blob", c.Blob)
	check("uri", c.URI)
	check("name", c.Name)
	switch c.Type {
	case "text":
		if c.Data != "" || c.File != "" || c.Blob != "" {
			ps = append(ps, problemf("type", "a text block takes only text"))
		}
	case "image", "audio":
		if (c.Data == "") == (c.File == "") {
			ps = append(ps, problemf("data", "an %s block needs exactly one of data (base64) or file", c.Type))
		}
		if c.Data != "" && !strings.Contains(string(c.Data), "{{") {
			if _, err := base64.StdEncoding.DecodeString(string(c.Data)); err != nil {
				ps = append(ps, problemf("data", "not valid base64: %v", err))
			}
		}
		if c.MimeType == "" && c.File == "" {
			ps = append(ps, problemf("mimeType", "an %s block with inline data needs a mimeType", c.Type))
		}
		if c.MimeType != "" && !strings.HasPrefix(c.MimeType, c.Type+"/") {
			ps = append(ps, problemf("mimeType", "%q is not an %s type", c.MimeType, c.Type))
		}
	case "resource":
		if c.URI == "" {
			ps = append(ps, problemf("uri", "an embedded resource needs a uri"))
		}
		if c.Text != "" && c.Blob != "" {
			ps = append(ps, problemf("blob", "an embedded resource has text or blob, not both"))
		}
		if c.Blob != "" && !strings.Contains(string(c.Blob), "{{") {
			if _, err := base64.StdEncoding.DecodeString(string(c.Blob)); err != nil {
				ps = append(ps, problemf("blob", "not valid base64: %v", err))
			}
		}
	case "resource_link":
		if c.URI == "" {
			ps = append(ps, problemf("uri", "a resource link needs a uri"))
		}
		if c.Name == "" {
			ps = append(ps, problemf("name", "a resource link needs a name"))
		}
	case "":
		ps = append(ps, problemf("type", "missing; one of %s", strings.Join(catalog.ContentTypes, ", ")))
	default:
		ps = append(ps, problemf("type", "unknown content type %q; one of %s", c.Type, strings.Join(catalog.ContentTypes, ", ")))
	}
	return ps
}

// Render produces the MCP content block for one call.
func RenderContent(c catalog.Content, data *Data) (mcp.Content, error) {
	r := func(t catalog.Template) (string, error) { return Render(t, data) }
	switch c.Type {
	case "text":
		text, err := r(c.Text)
		if err != nil {
			return nil, err
		}
		return &mcp.TextContent{Text: text}, nil
	case "image", "audio":
		raw, mimeType, err := contentBinary(c, data)
		if err != nil {
			return nil, err
		}
		if c.Type == "image" {
			return &mcp.ImageContent{Data: raw, MIMEType: mimeType}, nil
		}
		return &mcp.AudioContent{Data: raw, MIMEType: mimeType}, nil
	case "resource":
		uri, err := r(c.URI)
		if err != nil {
			return nil, err
		}
		rc := &mcp.ResourceContents{URI: uri, MIMEType: c.MimeType}
		if c.Blob != "" {
			b64, err := r(c.Blob)
			if err != nil {
				return nil, err
			}
			if rc.Blob, err = base64.StdEncoding.DecodeString(b64); err != nil {
				return nil, fmt.Errorf("resource blob: not valid base64: %w", err)
			}
		} else if rc.Text, err = r(c.Text); err != nil {
			return nil, err
		}
		return &mcp.EmbeddedResource{Resource: rc}, nil
	case "resource_link":
		uri, err := r(c.URI)
		if err != nil {
			return nil, err
		}
		name, err := r(c.Name)
		if err != nil {
			return nil, err
		}
		return &mcp.ResourceLink{URI: uri, Name: name, Title: c.Title, Description: c.Description, MIMEType: c.MimeType}, nil
	}
	return nil, fmt.Errorf("unknown content type %q", c.Type)
}

// binary returns the decoded bytes of an image or audio block and its MIME
// type, reading the file when the block names one.
func contentBinary(c catalog.Content, data *Data) ([]byte, string, error) {
	if c.File != "" {
		path, err := Render(c.File, data)
		if err != nil {
			return nil, "", err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, "", fmt.Errorf("%s file: %w", c.Type, err)
		}
		mt := c.MimeType
		if mt == "" {
			mt = mime.TypeByExtension(filepath.Ext(path))
		}
		return b, mt, nil
	}
	b64, err := Render(c.Data, data)
	if err != nil {
		return nil, "", err
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return nil, "", fmt.Errorf("%s data: not valid base64: %w", c.Type, err)
	}
	return b, c.MimeType, nil
}

// RenderAll renders a list of blocks in order.
func RenderAll(blocks []catalog.Content, data *Data) ([]mcp.Content, error) {
	out := make([]mcp.Content, 0, len(blocks))
	for i, b := range blocks {
		c, err := RenderContent(b, data)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}
