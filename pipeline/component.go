package pipeline

import (
	"fmt"

	"github.com/npyflow/npyflow/pipeline/job"
)

// builder makes the runtime node of a component from its validated
// options and its input schema (nil for sources): the job.Spec's Impl of
// every component the engine registers.
type builder func(c *job.Component, in *Schema, env *buildEnv) (node, error)

// register declares a component type (package job's registry) whose
// runtime node build makes.
func register(s *job.Spec, build builder) {
	if s.Options == nil {
		panic(fmt.Sprintf("pipeline: %s %q declares no options struct (job.Spec.Options)", s.Kind, s.Type))
	}
	s.Impl = build
	job.Register(s)
}

// build makes the node of c.
func build(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	return c.Spec.Impl.(builder)(c, in, env)
}

func ptr(f float64) *float64 { return &f }
