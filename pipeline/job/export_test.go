package job

// Value returns the value of option name of c as Load checked it
// (string, int64, float64, bool, []string or []KV), or its default: what
// the tests of Load compare, whatever struct the component's options
// fill.
func Value(c *Component, name string) any {
	if c.vals[name] != nil {
		return c.decoded(name)
	}
	return c.Spec.Field(name).Default
}
