package main

import (
	"fmt"

	"github.com/npyflow/npyflow/pipeline/job"
)

func init() {
	register("schema", "print the JSON Schema of job files (for editors)", runSchema)
}

// runSchema prints the job file JSON Schema generated from the component
// registry. With the YAML language server, put
// "# yaml-language-server: $schema=npyflow.schema.json" atop a job file.
func runSchema(e *env) error {
	if err := noArgs(e, "schema"); err != nil {
		return err
	}
	b, err := job.JSONSchema()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s\n", b)
	return nil
}
