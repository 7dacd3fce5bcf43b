package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	fynestorage "fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// exportFileName is the name the export dialog suggests.
const exportFileName = "mcptray-catalog.json"

// ImportCatalog imports the catalog file at path, all or nothing: merged
// over the stored catalog (an entry with the same name or URI replaces the
// stored one), or with replace instead of it. On problems the error wraps a
// *catalog.ValidationError listing them all, and nothing changed. It returns
// the file's catalog.
func (m *Manager) ImportCatalog(path string, replace bool) (*catalog.Catalog, error) {
	c, err := storage.ReadCatalogFile(path, mcpcore.Validator{})
	if err != nil {
		return nil, err
	}
	if err := m.importParsed(c, replace); err != nil {
		return nil, err
	}
	return c, nil
}

func (m *Manager) importParsed(c *catalog.Catalog, replace bool) error {
	if err := m.cfg.Store.Import(context.Background(), c, replace); err != nil {
		return fmt.Errorf("importing the catalog: %w", err)
	}
	return nil
}

// ExportCatalog writes the stored catalog to path (see
// storage.Store.ExportFile).
func (m *Manager) ExportCatalog(path string) error {
	return m.cfg.Store.ExportFile(context.Background(), path)
}

// catalogSummary counts a catalog's entries for people:
// "2 tools, 1 resource, 0 resource templates and 3 prompts".
func catalogSummary(c *catalog.Catalog) string {
	n := func(k int, one, many string) string {
		if k == 0 {
			return "0 " + many // "0 prompts" reads better than "no prompts" in a list of counts
		}
		return words.Count(k, one, many)
	}
	return fmt.Sprintf("%s, %s, %s and %s", n(len(c.Tools), "tool", "tools"), n(len(c.Resources), "resource", "resources"),
		n(len(c.ResourceTemplates), "resource template", "resource templates"), n(len(c.Prompts), "prompt", "prompts"))
}

// chooseImport asks for a catalog file, then how to import it.
func (m *Manager) chooseImport() {
	d := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil {
			dialog.ShowError(fmt.Errorf("choosing the catalog file: %w", err), m.win)
			return
		}
		if rc == nil {
			return // cancelled
		}
		path := rc.URI().Path()
		rc.Close()
		var c *catalog.Catalog
		m.background.Run(func() { c, err = storage.ReadCatalogFile(path, mcpcore.Validator{}) }, func() {
			if err != nil {
				m.showImportError(path, err)
				return
			}
			m.askImport(path, c)
		})
	}, m.win)
	d.SetFilter(fynestorage.NewExtensionFileFilter([]string{".json"}))
	d.Show()
}

// askImport asks whether to merge the file's catalog or replace the stored
// one with it, then imports it.
func (m *Manager) askImport(path string, c *catalog.Catalog) {
	msg := fmt.Sprintf("%s holds %s.\n\n"+
		"Merge adds them, replacing the entries of the same name or URI; everything else stays.\n\n"+
		"Replace everything makes the catalog exactly the file: Replace deletes every tool, resource and prompt not in the file.",
		filepath.Base(path), catalogSummary(c))
	if m.unsavedEditor() {
		msg += "\n\nThe editor open now has changes that are not saved: importing closes it and they are lost."
	}
	text := widget.NewLabel(msg)
	text.Wrapping = fyne.TextWrapWord
	var d *dialog.CustomDialog
	answer := func(replace bool) func() {
		return func() {
			d.Hide()
			var err error
			m.background.Run(func() { err = m.importParsed(c, replace) }, func() { m.importDone(path, c, err) })
		}
	}
	merge := widget.NewButton("Merge", answer(false))
	merge.Importance = widget.HighImportance
	replace := widget.NewButton("Replace everything", answer(true))
	replace.Importance = widget.DangerImportance
	cancel := widget.NewButton("Cancel", func() { d.Hide() })
	d = dialog.NewCustomWithoutButtons("Import catalog", text, m.win)
	d.SetButtons([]fyne.CanvasObject{cancel, replace, merge})
	d.Resize(fyne.NewSize(560, 280))
	d.Show()
}

// importDone reports an import and shows its result in every list.
func (m *Manager) importDone(path string, c *catalog.Catalog, err error) {
	if err != nil {
		m.showImportError(path, err)
		return
	}
	// Open editors may hold entries the import replaced or deleted: saving
	// one would undo the import.
	m.tools.close()
	m.resources.close()
	m.prompts.close()
	m.dropToolEditor()
	m.resEditor, m.tmplEditor, m.promptEditor = nil, nil, nil
	m.reloadEntries()
	did := fmt.Sprintf("Imported %s from %s.", catalogSummary(c), filepath.Base(path))
	var missing []missingSecret
	for _, ms := range missingOf(m.needs) {
		for _, t := range c.Tools {
			if slices.Contains(ms.tools, t.Name) {
				missing = append(missing, ms)
				break
			}
		}
	}
	if len(missing) == 0 {
		dialog.ShowInformation("Catalog imported", did, m.win)
		return
	}
	m.showImported(did, missing)
}

// showImportError shows why an import was refused; validation problems are
// listed one by one in a scrollable dialog.
func (m *Manager) showImportError(path string, err error) {
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) {
		dialog.ShowError(err, m.win)
		return
	}
	list := container.NewVBox()
	for _, p := range ve.Problems {
		where := p.Entry
		if p.Field != "" {
			where += " · " + p.Field
		}
		msg := widget.NewLabel(p.Message)
		msg.Wrapping = fyne.TextWrapWord
		list.Add(container.NewVBox(widget.NewLabelWithStyle(where, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), msg, widget.NewSeparator()))
	}
	head := widget.NewLabel(fmt.Sprintf("%s was not imported: %s. Nothing was changed.", filepath.Base(path), words.Count(len(ve.Problems), "problem", "problems")))
	head.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Import refused", "Close", container.NewBorder(head, nil, nil, nil, container.NewVScroll(list)), m.win)
	d.Resize(fyne.NewSize(640, 460))
	d.Show()
}

// chooseExport asks where to export the catalog, then writes it.
func (m *Manager) chooseExport() {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil {
			dialog.ShowError(fmt.Errorf("choosing where to export: %w", err), m.win)
			return
		}
		if wc == nil {
			return // cancelled
		}
		// The dialog has opened the file, emptying one that existed (Fyne
		// opens it for writing); the export then replaces it atomically.
		path := wc.URI().Path()
		wc.Close()
		m.background.Run(func() { err = m.ExportCatalog(path) }, func() {
			if err != nil {
				dialog.ShowError(err, m.win)
				return
			}
			dialog.ShowInformation("Catalog exported", "The catalog is saved in "+path+".", m.win)
		})
	}, m.win)
	d.SetFileName(exportFileName)
	d.SetFilter(fynestorage.NewExtensionFileFilter([]string{".json"}))
	d.Show()
}
