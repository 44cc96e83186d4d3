package cli

import (
	"net/http"

	"github.com/contractbot/contractbot/internal/lineage/olstore"
)

// withLineage adds the OpenLineage endpoint (POST and GET /api/v1/lineage) to what
// serve mounts, keeping events in the file when one is given.
func withLineage(mount func(*http.ServeMux), file string) (func(*http.ServeMux), error) {
	store, err := olstore.Open(file)
	if err != nil {
		return nil, err
	}
	return func(mux *http.ServeMux) {
		if mount != nil {
			mount(mux)
		}
		mux.Handle(olstore.Path, store)
	}, nil
}
