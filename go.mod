module endovisor

go 1.26.8

require (
	github.com/rogpeppe/go-internal v1.16.0
	github.com/yuin/goldmark v1.8.7
)

require (
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
