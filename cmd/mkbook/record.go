package main

import (
	"fmt"
	"os"
	"strings"

	"endovisor/internal/figlog"
)

// Records are what a run too long for make book printed: hours of boots
// on the debug kernel, say.  They are kept under book/records/, one
// directory each, committed with the change they speak for, and a
// chapter quotes their lines as printed:
//
//	{{record PATH TEXT}}  every line of the record PATH that holds TEXT,
//	                      each linked to its place; alone on its line
//
// The book takes no figure from a record: it shows what a record says,
// and checks no claim against it.  Only files in the records
// directory are records, as only files in the logs directory are logs.
const recordsDir = "book/records"

type recordKind struct{}

func (recordKind) usage() string                    { return "{{record PATH TEXT}}" }
func (recordKind) block() bool                      { return true }
func (recordKind) suites(config, []string) []string { return nil }
func (k recordKind) resolve(b *book, args []string) (use, error) {
	if len(args) < 2 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	name, err := b.recordFile(args[0])
	if err != nil {
		return use{}, err
	}
	return b.quoteLines(name, strings.Join(args[1:], " "))
}

// recordFile resolves a path a chapter names, relative to the root, to a
// file in the records directory.
func (b *book) recordFile(rel string) (string, error) {
	// The directory itself must be one: a link there could publish anything.
	if st, err := os.Lstat(b.path(recordsDir)); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory of records", recordsDir)
	}
	if _, err := os.Lstat(b.path(rel)); err != nil {
		return "", fmt.Errorf("no record %s", rel)
	}
	name, ok := figlog.Within(b.path(recordsDir), b.path(rel))
	if !ok {
		return "", fmt.Errorf("%s is not in the records directory %s", rel, recordsDir)
	}
	return name, nil
}

// recordName is a record's path in the records directory, which names
// its page, and whether file is a record at all.
func (b *book) recordName(file string) (string, bool) {
	return relWithin(b.path(recordsDir), file)
}
