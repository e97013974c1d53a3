package main

import (
	"strings"
	"testing"
)

// TestListingReadBound: once the book's listings have read their bound
// of the sources, a listing is refused.
func TestListingReadBound(t *testing.T) {
	b, err := load(config{root: fixture(t, "good"), logs: "prototype/.build", src: "book/src"})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := parseListing("prototype/stub/cross.S /ev_stub_cross:/ /ret/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.listing(spec); err != nil {
		t.Fatal(err)
	}
	b.listingRead = maxListingRead + 1
	if _, err := b.listing(spec); err == nil || !strings.Contains(err.Error(), "have read more than 16 MiB") {
		t.Errorf("a listing past the bound: %v", err)
	}
}
