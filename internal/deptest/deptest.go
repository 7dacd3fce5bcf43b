// Package deptest holds the tests of what the packages may import: the
// rules that let each part be tested, and run, alone. It has no code of its
// own.
package deptest
