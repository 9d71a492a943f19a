// Package job reads npyflow job files: YAML documents naming sources,
// transforms and sinks, each a component of a registered type with
// options.
//
// # Where things live
//
// spec.go declares components: a [Spec] per component type, its options
// one Go struct whose tags give each option's key, type, default, allowed
// values, bounds, checks, flag and documentation (options.go, [FieldsOf];
// the [Field]s generated from it), in one registry ([Register],
// [Lookup], [Specs]) that package pipeline fills in its init functions
// (each file format registers its source and sink there). load.go is
// [Load] and [LoadFile]: parsing, validation of every option against its
// Field, once, the links between components, and a fresh options struct
// per [Component] that its builder reads ([Options]); flag.go checks a
// command-line flag's text the same way ([Field.ParseFlag]); component.go
// the positions of a validated component's options, for errors found
// later; expand.go the ${VAR},
// ${VAR:-default} and ${VAR:?message} expansion and --set overrides
// ([LoadOptions]); schema.go the JSON schema of job files ([JSONSchema]),
// generated from the same registry as validation and `npyflow list`;
// errors.go the positioned errors ([Error], [ErrorList]).
//
// Validation reports every problem at once, each as "file:line:col: path:
// message", with "did you mean" suggestions for misspelt keys, types and
// names. Variables are expanded inside scalar values after parsing, so
// positions stay exact and a variable cannot change the document's
// structure.
//
// What a job does is package pipeline's: it builds a plan from a [Job]
// and runs it.
package job
