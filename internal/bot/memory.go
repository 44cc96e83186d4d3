package bot

import (
	"log/slog"
	"time"

	"github.com/contractbot/contractbot/internal/bot/memory"
)

// keeper is the bot's memory keeper (internal/bot/memory): its login, its key, its clock.
func (b *Bot) keeper() memory.Keeper {
	return memory.Keeper{Self: b.Self, Key: b.StateKey, Clock: b.Clock}
}

// app is the slug of the App the bot acts as ("" when it acts as a user): the check
// runs it created carry it.
func (b *Bot) app() string { return b.keeper().App() }

// commentRef names a pull request in the comment's signature.
func commentRef(pr PullRequest) string { return memory.Ref(pr) }

// readMemory verifies the memory in a pull request's comments (memory.Keeper.Read).
func readMemory(all []Comment, self string, key []byte, pr PullRequest, log *slog.Logger) memory.Memory {
	return memory.Keeper{Self: self, Key: key}.Read(all, pr, log)
}

// sealOf and parseSeal write and read the check run's seal (memory.Seal).
func sealOf(t time.Time) string            { return memory.Seal(t) }
func parseSeal(s string) (time.Time, bool) { return memory.ParseSeal(s) }
