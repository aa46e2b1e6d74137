package lsp

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
)

// contextLs.stats and contextLs.reindex.

// StatsArgs are the (empty) arguments of contextLs.stats.
type StatsArgs struct{}

// StatsResult is the result of contextLs.stats.
type StatsResult struct {
	Folders []FolderStats       `json:"folders" desc:"one entry per workspace folder"`
	Jobs    []service.JobStatus `json:"jobs" desc:"recent reindex jobs of every folder, oldest first"`
}

// FolderStats describes one folder's index.
type FolderStats struct {
	service.StatsResult
	Folder      string `json:"folder" desc:"URI of the workspace folder as the client named it"`
	OpenBuffers int    `json:"openBuffers" desc:"open documents of the folder (their unsaved text is what queries see)"`
}

func runStats(ctx context.Context, env *CommandEnv, _ StatsArgs) (StatsResult, error) {
	res := StatsResult{Folders: []FolderStats{}, Jobs: []service.JobStatus{}}
	err := env.s.eachFolder(ctx, "contextLs.stats", session.NeedText, func(f *folder, svc *service.Service) error {
		st, err := svc.Stats(ctx, service.StatsRequest{})
		if err != nil {
			return err
		}
		n := 0
		for _, d := range env.s.docs.all() {
			if session.Within(d.Path, f.root) {
				n++
			}
		}
		res.Folders = append(res.Folders, FolderStats{StatsResult: *st, Folder: f.uri, OpenBuffers: n})
		res.Jobs = append(res.Jobs, st.Jobs...)
		return nil
	})
	if err != nil {
		return StatsResult{}, err
	}
	return res, nil
}

// ReindexArgs are the arguments of contextLs.reindex.
type ReindexArgs struct {
	Confirm bool     `json:"confirm,omitempty" desc:"must be true to re-index (not needed with dryRun)"`
	DryRun  bool     `json:"dryRun,omitempty" desc:"only list what would be re-indexed and removed"`
	Paths   []string `json:"paths,omitempty" desc:"files or directories: file URIs, absolute paths, or paths relative to a workspace folder; empty: every folder entirely"`
}

// ReindexResult is the result of contextLs.reindex.
type ReindexResult struct {
	JobID   string          `json:"jobId,omitempty" desc:"the first folder's job (each folder runs its own; see folders[].jobId)"`
	DryRun  bool            `json:"dryRun" desc:"true when nothing was changed"`
	Folders []ReindexFolder `json:"folders" desc:"the folders the reindex covers"`
}

// ReindexFolder is one folder of a reindex: the service's answer for it
// (its jobId runs in the background; contextLs.stats reports its state
// and $/progress its progress).
type ReindexFolder struct {
	URI string `json:"uri" desc:"folder URI"`
	service.ReindexResult
}

func runReindex(ctx context.Context, env *CommandEnv, a ReindexArgs) (ReindexResult, error) {
	if !a.Confirm && !a.DryRun {
		return ReindexResult{}, jsonrpc.InvalidParams("arguments[0].confirm: must be true: contextLs.reindex parses every selected file again (pass dryRun: true to see which)")
	}
	plan, err := env.s.backend.PlanPaths(a.Paths)
	if err != nil {
		return ReindexResult{}, argError(err)
	}
	res := ReindexResult{DryRun: a.DryRun, Folders: []ReindexFolder{}}
	for i, fp := range plan {
		svc, release, err := env.s.backend.Service(fp.Root)
		if err != nil {
			return res, err
		}
		jctx := ctx
		if !a.DryRun {
			if i > 0 {
				env.token = nil // the client's token reports the first folder's job
			}
			p := env.detachedProgress("Re-indexing "+filepath.Base(fp.Root), "files")
			jctx = service.WithProgress(ctx, func(pr service.Progress) {
				if pr.End {
					p.end(pr.Message)
					return
				}
				p.reportMessage(pr.Done, pr.Total, pr.Message)
			})
		}
		r, err := svc.Reindex(jctx, service.ReindexRequest{Paths: fp.Paths, Confirm: a.Confirm, DryRun: a.DryRun})
		release()
		if err != nil {
			return res, argError(fmt.Errorf("%s: %w", fp.Root, err))
		}
		if res.JobID == "" {
			res.JobID = r.JobID
		}
		res.Folders = append(res.Folders, ReindexFolder{URI: workspace.PathToURI(fp.Root), ReindexResult: *r})
	}
	return res, nil
}

// detachedProgress starts progress that outlives the command's response
// (a background job): on the client's workDoneToken when it sent one,
// else on a server-created token, else nowhere (nil). The caller ends it.
func (e *CommandEnv) detachedProgress(title, unit string) *progress {
	if len(e.token) > 0 && !session.IsNull(e.token) {
		return startProgress(e.s.ctx(), e.s.rpc, e.token, false, title, unit, e.s.opts.ClientRequestTimeout)
	}
	return e.s.newServerProgress(title, unit)
}
