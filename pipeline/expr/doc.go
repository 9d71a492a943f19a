// Package expr is the filter language of npyflow jobs: a predicate over
// the fields of numpy records, such as
//
//	temp > 20.5 and station in ['A', 'B'] and t_max > t_min
//
// [Parse] reads a predicate (lex.go, parse.go), [Expr.Bind] resolves its
// field names against a record dtype and checks the types of each
// comparison (bind.go, datelit.go for ISO 8601 datetime literals), and
// [Expr.Eval] evaluates it over a batch of rows held as native-order bytes
// (eval.go), a column chunk at a time. The filter transform (package
// pipeline) is Parse, Bind and Eval; job validation calls [Check]. Like
// text/template/parse, the package knows nothing of jobs or files.
//
// # Grammar
//
//	expr   = or
//	or     = and { "or" and }
//	and    = unary { "and" unary }
//	unary  = "not" unary | "(" expr ")" | cmp
//	cmp    = operand op operand {op operand} | field ["not"] "in" "[" literal {"," literal} "]"
//	operand = field | literal
//	op     = "==" | "!=" | "<" | "<=" | ">" | ">="
//	field  = name | `any name`
//	literal = number | 'string' | "string" | true | false | nan | inf
//
// Each side of an operator is a field or a literal, at least one of them
// a field: a == b compares two columns row by row, and 3 < a is a > 3.
// A chain compares each neighbouring pair, like Python: 0 <= x < 10 is
// 0 <= x and x < 10. A field named like a keyword (true, false, nan, inf,
// and, or, not, in) is written `true`.
//
// Types: numbers (bool, int8..int64, uint8..uint64, float32, float64)
// compare with numbers, by exact value whatever their types: int64
// 2**53+1 > float64 2**53 is true, and uint64 2**63 != int64 2**63-1
// (numpy casts such pairs to float64 first, so it can say otherwise
// beyond 2**53). NaN compares false except with !=, like numpy. bool is
// 0 or 1. datetime64 and timedelta64 fields compare with numbers (their
// int64 count) or with a field of the same type and unit; datetime64
// fields also compare with ISO 8601 strings ('2024-03-01',
// '2024-03-01T12:30:00.25', no time zone), as instants like numpy: a
// string between two counts of the field's unit equals neither; NaT compares
// like NaN (false except with !=; t != t finds it), as in numpy. Strings compare
// with strings of the same kind (U with U, S with S, any widths) by code
// point or byte, ignoring trailing NULs like numpy. float16 is refused
// (cast it first). Any other pair is a validation error.
package expr
