// Package raft is a fixture: interfaces, named slices, type switches.
package raft

// RPC is a request.
type RPC struct{}

// Transport carries requests.
type Transport interface {
	SetHeartbeatHandler(cb func(rpc RPC))
}

// InmemTransport is a Transport.
type InmemTransport struct{}

// SetHeartbeatHandler sets the handler.
func (t *InmemTransport) SetHeartbeatHandler(cb func(RPC)) {}

// Raft is a node.
type Raft struct {
	trans Transport
}

// NewRaft makes a node.
func NewRaft(t Transport) (*Raft, error) {
	return &Raft{trans: t}, nil
}

// Leader says whether it leads.
func (r *Raft) Leader() bool { return true }

// Start starts it.
func (r *Raft) Start() {
	r.trans.SetHeartbeatHandler(nil)
}

// Namer has a name.
type Namer interface{ Name() string }

// Peer is another node.
type Peer struct{}

// Name names it.
func (p *Peer) Name() string { return "peer" }

// Ping pings it.
func (p *Peer) Ping() {}

// Peers is a named slice.
type Peers []*Peer

func pingAll(p Peers) {
	for _, s := range p {
		s.Ping()
	}
}

func describe(v any) string {
	switch x := v.(type) {
	case Namer:
		return x.Name()
	case *Peer:
		x.Ping()
	}
	return ""
}

func elect(leader *Raft, t Transport) {
	r := leader
	r.Start()
	var r2 *Raft
	var err error
	r2, err = NewRaft(t)
	if err == nil {
		r2.Leader()
	}
}
