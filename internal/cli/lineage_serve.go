package cli

import (
	"log/slog"
	"net/http"

	"github.com/contractbot/contractbot/internal/lineage/olstore"
	"github.com/contractbot/contractbot/internal/web"
)

// withLineage adds the OpenLineage endpoint (POST and GET /api/v1/lineage) to what
// serve mounts, keeping events in the file when one is given, and shows what they say
// on the lineage page of pages (when not nil). A POST must carry token as a bearer
// token when token is not empty.
func withLineage(mount func(*http.ServeMux), file, token string, pages *web.Pages, log *slog.Logger) (func(*http.ServeMux), error) {
	store, err := olstore.Open(file, log)
	if err != nil {
		return nil, err
	}
	store.Token = token
	if pages != nil {
		pages.Observed = store
	}
	return func(mux *http.ServeMux) {
		if mount != nil {
			mount(mux)
		}
		mux.Handle(olstore.Path, store)
	}, nil
}
