package job

import (
	"encoding/json"
)

// JSONSchema returns the JSON Schema (draft-07) of job files, generated
// from the component registry. Point an editor's YAML language server at
// it to complete and check job files. Numeric and boolean options also
// accept a string containing ${...}, which is expanded at load time.
func JSONSchema() ([]byte, error) {
	defs := map[string]any{}
	section := func(k Kind) map[string]any {
		var branches []any
		var types []string
		for _, s := range Specs(k) {
			types = append(types, s.Type)
			key := k.String() + "." + s.Type
			defs[key] = specSchema(s)
			branches = append(branches, map[string]any{
				"if":   map[string]any{"properties": map[string]any{"type": map[string]any{"const": s.Type}}, "required": []string{"type"}},
				"then": map[string]any{"$ref": "#/definitions/" + key},
			})
		}
		defs[k.String()] = map[string]any{
			"type":       "object",
			"required":   []string{"type"},
			"properties": map[string]any{"type": map[string]any{"enum": types, "description": "the " + k.String() + " type"}},
			"allOf":      branches,
		}
		return map[string]any{
			"type":                 "object",
			"description":          "named " + k.Section() + "; names are referred to by input",
			"propertyNames":        map[string]any{"pattern": nameRE.String()},
			"additionalProperties": map[string]any{"$ref": "#/definitions/" + k.String()},
		}
	}
	root := map[string]any{
		"$schema":              "http://json-schema.org/draft-07/schema#",
		"$id":                  "https://github.com/npyflow/npyflow/job.schema.json",
		"title":                "npyflow job",
		"description":          "A job file for `npyflow run`: sources feed transforms and sinks.",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"version", "sources", "sinks"},
		"properties": map[string]any{
			"version":    map[string]any{"const": Version, "description": "the job file format version"},
			"sources":    section(Source),
			"transforms": section(Transform),
			"sinks":      section(Sink),
		},
		"definitions": defs,
	}
	return json.MarshalIndent(root, "", "  ")
}

var envRef = map[string]any{"type": "string", "pattern": `\$\{`}

func specSchema(s *Spec) map[string]any {
	props := map[string]any{}
	var req []string
	for _, f := range s.Fields {
		var fs map[string]any
		switch f.Type {
		case String:
			fs = map[string]any{"type": "string"}
			if f.Enum != nil {
				fs["enum"] = f.Enum
			}
		case Int, Float:
			t := "integer"
			if f.Type == Float {
				t = "number"
			}
			num := map[string]any{"type": t}
			if f.Min != nil {
				num["minimum"] = *f.Min
			}
			if f.Max != nil {
				num["maximum"] = *f.Max
			}
			fs = map[string]any{"anyOf": []any{num, envRef}}
		case Bool:
			fs = map[string]any{"anyOf": []any{map[string]any{"type": "boolean"}, envRef}}
		case StringList:
			fs = map[string]any{"anyOf": []any{
				map[string]any{"type": "string"},
				map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1},
			}}
		case StringMap:
			fs = map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "minProperties": 1}
		}
		if f.Name == "type" {
			fs = map[string]any{"const": s.Type}
		}
		if f.Doc != "" {
			fs["description"] = f.Doc
		}
		if f.Default != nil {
			fs["default"] = f.Default
		}
		props[f.Name] = fs
		if f.Required {
			req = append(req, f.Name)
		}
	}
	out := map[string]any{
		"type":                 "object",
		"description":          s.Summary,
		"additionalProperties": false,
		"properties":           props,
	}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}
