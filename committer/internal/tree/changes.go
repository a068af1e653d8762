package tree

// Changes is a validated change set as the tree logic takes it, every
// put's blob SHA computed.
type Changes struct {
	Ops   []Op
	Pres  []Precondition
	Syncs []Sync
}

// OpKind is what an Op does.
type OpKind int

// The kinds of Op.
const (
	OpPut OpKind = iota
	OpDelete
	OpEdit
)

// Op is one put, delete or edit of a change set.
type Op struct {
	Kind OpKind
	Path string
	Mode string                                        // OpPut
	Src  *Source                                       // OpPut
	Edit func(old []byte, exists bool) ([]byte, error) // OpEdit
}

// Precondition is what a path must hold on the head for the change set to
// apply: absent, the blob SHA, or (AnyOf set) one of the blob SHAs listed,
// "" standing for absent.
type Precondition struct {
	Path   string
	Absent bool
	SHA    string
	AnyOf  []string
}

// Sync makes the directory Dir ("" = the root) hold exactly Files.
type Sync struct {
	Dir   string
	Files []SyncFile
}

// SyncFile is one file of a Sync, by path relative to its directory.
type SyncFile struct {
	Rel  string
	Mode string
	Src  *Source
}

// Lookups are the paths resolving ch asks the base tree about, directories
// above them aside: every operation's path, every precondition's and every
// synced directory (whose files its listing answers).
func (ch *Changes) Lookups() []string {
	var out []string
	for _, o := range ch.Ops {
		out = append(out, o.Path)
	}
	for _, pre := range ch.Pres {
		out = append(out, pre.Path)
	}
	for _, s := range ch.Syncs {
		out = append(out, s.Dir)
	}
	return out
}
