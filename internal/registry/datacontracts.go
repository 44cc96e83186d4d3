package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/contractbot/contractbot/internal/atomicfile"
	"github.com/contractbot/contractbot/internal/versions"
)

// dataContractsFormat is the layout of the data contracts file, and the version of
// what MetadataOf, RuleSetOf and GroupOf make of a contract.yaml: change it when they
// change, and every file written before is read no more.
const dataContractsFormat = 1

// dataContract is what a version's contract.yaml gives the registry: its metadata, its
// ruleSet and its compatibility group key (builder.dataContract).
type dataContract struct {
	Metadata *Metadata `json:"metadata,omitempty"`
	RuleSet  *RuleSet  `json:"ruleSet,omitempty"`
	Group    string    `json:"group,omitempty"`
}

// dataContractsFile is the content of the data contracts file: the data contract of
// each contract.yaml the last first build read, by contract.DataContractKey (the
// versions index records it of every version), so that a start with a cached index
// neither reads nor decodes a contract.yaml per version. At 100,000 subjects that
// was 13 of the warm start's 31 s of CPU before the registry was ready
// (docs/performance.md).
type dataContractsFile struct {
	Format int                     `json:"format"`
	ByKey  map[string]dataContract `json:"byKey"`
}

// dataContracts is the file's content during a snapshot's first build: read before,
// written after when the build read a contract.yaml it did not hold, then let go.
type dataContracts struct {
	path  string
	log   *slog.Logger
	byKey map[string]dataContract
	used  map[string]dataContract
	// read counts the contract.yaml files decoded because the file lacked them.
	read int
}

// openDataContracts reads the data contracts file at path; a missing or unusable
// file starts empty (a warning says why).
func openDataContracts(path string, log *slog.Logger) *dataContracts {
	d := &dataContracts{path: path, log: log, used: map[string]dataContract{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d
	}
	var f dataContractsFile
	if err == nil {
		err = json.Unmarshal(data, &f)
	}
	if err == nil && f.Format != dataContractsFormat {
		err = fmt.Errorf("the file has layout %d, this build reads %d", f.Format, dataContractsFormat)
	}
	if err != nil {
		log.Warn("embedded registry: ignoring the cached data contracts; reading every version's contract.yaml", "file", path, "err", err)
		return d
	}
	d.byKey = f.ByKey
	return d
}

// dataContractKey is the version's data contract key without the emptied-ruleSet mark, which
// builder.dataContract applies after decoding; "" when the index has none.
func dataContractKey(v versions.Version) string {
	return strings.TrimSuffix(v.DataContract, versions.EmptiedRuleSet)
}

// get returns the data contract of v's contract.yaml when the file holds it.
func (d *dataContracts) get(v versions.Version) (dataContract, bool) {
	k := dataContractKey(v)
	if k == "" {
		return dataContract{}, false
	}
	c, ok := d.byKey[k]
	if ok {
		d.used[k] = c
	}
	return c, ok
}

// put records the data contract decoded from v's contract.yaml.
func (d *dataContracts) put(v versions.Version, c dataContract) {
	if k := dataContractKey(v); k != "" {
		d.used[k] = c
		d.read++
	}
}

// save writes the data contracts the build used, when it decoded any the file lacked
// or the file holds others.
func (d *dataContracts) save() {
	if d.read == 0 && len(d.used) == len(d.byKey) {
		return
	}
	data, err := json.Marshal(dataContractsFile{Format: dataContractsFormat, ByKey: d.used})
	if err == nil {
		err = atomicfile.Write(d.path, data)
	}
	if err != nil {
		d.log.Warn("embedded registry: could not save the data contracts; the next start reads every version's contract.yaml", "file", d.path, "err", err)
	}
}
