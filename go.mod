module github.com/netsimlab/netsim

go 1.26.0

require (
	github.com/emirpasic/gods v1.18.1 // indirect
	github.com/google/btree v1.1.3 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/sync v0.25.0 // indirect
)
