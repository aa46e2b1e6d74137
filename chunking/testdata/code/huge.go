// Copyright 2026 The context-ls Authors. All rights reserved.

// Package lexer turns configuration text into tokens. It exists as a fixture
// for the chunker: small declarations, a type with methods and one function
// far above the token budget.
package lexer

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Token kinds.
const (
	Ident Kind = iota
	Number
	String
	Punct
)

// ErrEOF is returned at the end of input.
var ErrEOF = errors.New("lexer: end of input")

var debug = false

// Kind classifies a token.
type Kind int

// Alias is a map alias.
type Alias = map[string]int

// Token is one lexical token.
type Token struct {
	Kind Kind
	Text string
	Line int
}

// String renders the token for error messages.
func (t Token) String() string { return fmt.Sprintf("%d:%q", t.Kind, t.Text) }

// IsKeyword reports whether the token is a reserved word.
func (t Token) IsKeyword() bool {
	switch t.Text {
	case "if", "else", "for", "return":
		return true
	}
	return false
}

// ---- the big one ----

// Lex splits src into tokens. It is deliberately long: a switch over
// character classes, nested loops and error handling, so that the chunker
// has to split it on statement boundaries.
func Lex(src string) ([]Token, error) {
	var toks []Token
	line := 1
	i := 0
	for i < len(src) {
		c := rune(src[i])
		switch {
		case c == '\n':
			line++
			i++
		case unicode.IsSpace(c):
			i++
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(src) && (unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j])) || src[j] == '_') {
				j++
			}
			toks = append(toks, Token{Kind: Ident, Text: src[i:j], Line: line})
			i = j
		case unicode.IsDigit(c):
			j := i
			seenDot := false
			for j < len(src) {
				d := src[j]
				if d == '.' && !seenDot {
					seenDot = true
					j++
					continue
				}
				if d < '0' || d > '9' {
					break
				}
				j++
			}
			toks = append(toks, Token{Kind: Number, Text: src[i:j], Line: line})
			i = j
		case c == '"':
			// A string literal with backslash escapes; it may not span lines.
			j := i + 1
			var b strings.Builder
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("line %d: unterminated string: %w", line, ErrEOF)
				}
				d := src[j]
				if d == '\n' {
					return nil, fmt.Errorf("line %d: newline in string", line)
				}
				if d == '\\' && j+1 < len(src) {
					switch src[j+1] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case '"', '\\':
						b.WriteByte(src[j+1])
					default:
						return nil, fmt.Errorf("line %d: bad escape \\%c", line, src[j+1])
					}
					j += 2
					continue
				}
				if d == '"' {
					break
				}
				b.WriteByte(d)
				j++
			}
			toks = append(toks, Token{Kind: String, Text: b.String(), Line: line})
			i = j + 1
		case c == '#':
			// Comments run to the end of the line.
			for i < len(src) && src[i] != '\n' {
				i++
			}
		default:
			if debug {
				fmt.Printf("punct %q at line %d\n", c, line)
			}
			toks = append(toks, Token{Kind: Punct, Text: string(c), Line: line})
			i++
		}
	}
	return toks, nil
}

func tiny() int { return 1 }

func tiny2() int { return 2 }

func init() {
	if strings.HasPrefix("x", "y") {
		debug = true
	}
}
