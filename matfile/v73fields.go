package matfile

import (
	"github.com/npyflow/npyflow/hdf5"
)

// fieldList decodes a struct's MATLAB_fields attribute. MATLAB stores a
// short list of field names in the attribute itself: variable-length
// sequences of 1-byte characters, one per field. A long one (from about
// 4096 characters of names in all, where the attribute would no longer
// fit in the object header) is an object reference instead, to a
// dataset in #refs# of one such sequence per field.
func (v *v73File) fieldList(a *hdf5.Attribute, path string) ([]string, error) {
	if a.Type == nil || a.Type.Class != hdf5.ClassReference {
		names, err := a.Strings()
		if err != nil {
			return nil, v.f.errfPath(path, "MATLAB_fields: %v", err)
		}
		return names, nil
	}
	refs, err := a.References()
	if err != nil {
		return nil, v.f.errfPath(path, "MATLAB_fields: %v", err)
	}
	if len(refs) != 1 || refs[0] == 0 {
		return nil, v.f.errfPath(path, "MATLAB_fields holds %d references, not one to the field names", len(refs))
	}
	obj, err := v.h.Deref(refs[0])
	if err != nil {
		return nil, v.h5err(path, err)
	}
	ds, ok := obj.(*hdf5.Dataset)
	if !ok {
		return nil, v.f.errfPath(path, "MATLAB_fields refers to a group, not to a dataset of field names")
	}
	t := ds.Type()
	if t == nil || t.Class != hdf5.ClassVarLen || (!t.VarLenString && (t.Base == nil || t.Base.Size != 1 ||
		(t.Base.Class != hdf5.ClassString && t.Base.Class != hdf5.ClassFixedPoint))) {
		return nil, v.f.errfPath(path, "MATLAB_fields refers to a dataset of type %s, not of field names", t)
	}
	if limit := v.f.opts.MaxElements; ds.Len() > uint64(limit) {
		return nil, &LimitError{Path: path, What: "number of struct fields", Size: int64(min(ds.Len(), 1<<62)), Limit: int64(limit), Hint: "MaxElements"}
	}
	vals, err := ds.ReadVarLen()
	if err != nil {
		return nil, v.h5err(path, err)
	}
	names := make([]string, len(vals))
	for i, b := range vals {
		names[i] = string(b)
	}
	return names, nil
}
