package cli

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/contractbot/contractbot/internal/lineage/olstore"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/web"
)

// newLineage is the OpenLineage endpoint (POST and GET /api/v1/lineage) serve
// mounts, keeping events in the file when one is given, and shows what they say on
// the lineage page of pages (when not nil). A POST must carry token as a bearer
// token; without one, POSTs are refused unless anyone says to take them from anyone.
func newLineage(file, token string, anyone bool, pages *web.Pages, log *slog.Logger) (server.Mounter, error) {
	if token != "" && anyone {
		return nil, errors.New("--insecure-lineage-without-token and a lineage token exclude each other: keep the token")
	}
	store, err := olstore.Open(file, log)
	if err != nil {
		return nil, err
	}
	store.Token, store.Anyone = token, anyone
	if pages != nil {
		pages.Observed = store
	}
	return server.MountFunc(func(mux *http.ServeMux) { mux.Handle(olstore.Path, store) }), nil
}
