package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/context-ls/context-ls/internal/evalset"
	"github.com/context-ls/context-ls/service"
)

func init() {
	benches = append(benches, benchCmd{"spans", "definition-level search and pack coverage on change descriptions (score_pack.py)", benchSpans})
}

// Floors and targets of definition-level search and pack coverage on
// ../shared/eval/localisation-dev-spans.jsonl, scored by its score_pack.py.
// The targets are issue 25's; the floors are what this project must not fall
// below (make bench fails under them): a little under what it measures
// (0.627, 0.528, 0.697, 0.920 since a file the evidence points at is
// spread from less in a pack; file Acc@5 0.927 against the issue's own
// floor, 0.92).
var spanFigures = []struct {
	name          string
	col           string  // column of score_pack.py's table
	target, floor float64 // target, floor
}{
	{"file Acc@5", "file Acc@5", 0.92, 0.92},
	{"function Acc@10", "func Acc@10", 0.70, 0.60},
	{"pack coverage (all) @2000", "cov all @2000", 0.55, 0.50},
	{"pack coverage (all) @4000", "cov all @4000", 0.70, 0.67},
	{"pack file recall @4000", "file recall @4000", 0.92, 0.90},
}

// benchSpans runs search and packs over the development change
// descriptions in process, through the service layer (the answers the CLI
// prints), writes them where score_pack.py keeps a program's outputs and
// scores them with it (--rescore): the same rules as scoring the CLI, in a
// fraction of the time (no process per query, every tree indexed once).
func benchSpans(args []string) error {
	fs := newFlags("spans")
	data := fs.String("spans", evalFile("localisation-dev-spans.jsonl"), "rows with their definition spans (JSON lines)")
	trees := fs.String("trees", filepath.Join(benchDir(), "localisation-trees"), "where the trees are unpacked (materialise.sh)")
	mirrors := fs.String("mirrors", os.Getenv("CONTEXT_EVAL_MIRRORS"), "folder of the git copies of the repositories (for materialise.sh)")
	db := fs.String("db", filepath.Join(benchDir(), "localisation-index"), "base directory of the trees' indexes")
	work := fs.String("work", filepath.Join(benchDir(), "spans"), "where outputs are written for score_pack.py")
	repo := fs.String("repo", "", "only this repository (owner/name)")
	perQuery := fs.String("per-query", "", "score_pack.py's per-query lines, written to this file (markdown)")
	hybrid := fs.Bool("hybrid", false, "search and pack with use-lite embeddings too (embeds every tree on first use: long)")
	reports := fs.String("reports", "", "score these texts instead (JSON lines of repo, commit and query: bug reports written for rows of -spans), on those rows only")
	fs.Parse(args)

	scorer := filepath.Join(filepath.Dir(*data), "score_pack.py")
	if _, err := os.Stat(scorer); err != nil {
		scorer = evalFile("score_pack.py") // rows made elsewhere (scripts/history-rows.py)
	}
	if *reports != "" {
		if *work == filepath.Join(benchDir(), "spans") {
			*work = filepath.Join(benchDir(), "spans-reports") // the dev rows' outputs stay
		}
		rows, err := withReports(*data, *reports, *work)
		if os.IsNotExist(err) {
			fmt.Printf("# %s not found: definition-level figures not measured\n", *data)
			return nil
		}
		if err != nil {
			return err
		}
		*data = rows
	}
	qs, err := evalset.LoadLocalisation(*data)
	if os.IsNotExist(err) {
		fmt.Printf("# %s not found: definition-level figures not measured\n", *data)
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := os.Stat(scorer); err != nil {
		fmt.Printf("# %s not found: definition-level figures not measured\n", scorer)
		return nil
	}
	var keep []evalset.LocQuery
	for _, q := range qs {
		if *repo == "" || q.Repo == *repo {
			keep = append(keep, q)
		}
	}
	qs = keep
	if ok, err := ensureTrees(qs, *trees, *mirrors, *data, "definition-level figures"); !ok || err != nil {
		return err
	}
	formats := []string{"markdown", "json"}
	budgets := []int{2000, 4000}
	for _, f := range formats {
		if err := os.RemoveAll(filepath.Join(*work, "raw", "spans-"+f)); err != nil {
			return err
		}
	}
	ctx := context.Background()
	byTree := map[string][]evalset.LocQuery{}
	var order []string
	for _, q := range qs {
		if byTree[q.Tree()] == nil {
			order = append(order, q.Tree())
		}
		byTree[q.Tree()] = append(byTree[q.Tree()], q)
	}
	var packLat []time.Duration
	for _, tree := range order {
		e, err := openTree(ctx, filepath.Join(*trees, tree), *db, *hybrid)
		if err != nil {
			return err
		}
		svc, err := service.New(e, service.Options{})
		if err != nil {
			e.Close()
			return err
		}
		for _, q := range byTree[tree] {
			res, err := svc.Search(ctx, service.SearchRequest{Query: q.Query, K: 50})
			if err != nil {
				svc.Close()
				e.Close()
				return fmt.Errorf("%s: search: %w", tree, err)
			}
			outs := map[string]map[string]any{}
			for _, f := range formats {
				outs[f] = map[string]any{"search": res}
				for _, b := range budgets {
					t0 := time.Now()
					p, err := svc.Pack(ctx, service.PackRequest{Query: q.Query, Budget: b, Format: f})
					if err != nil {
						svc.Close()
						e.Close()
						return fmt.Errorf("%s: pack: %w", tree, err)
					}
					if f == "markdown" {
						packLat = append(packLat, time.Since(t0))
						outs[f][fmt.Sprintf("pack-%d.md", b)] = p.Text
					} else {
						p.Text = ""
						outs[f][fmt.Sprintf("pack-%d.json", b)] = p
					}
				}
			}
			for _, f := range formats {
				if err := writeScorerRaw(filepath.Join(*work, "raw", "spans-"+f, scorerRowID(q)), outs[f]); err != nil {
					svc.Close()
					e.Close()
					return err
				}
			}
		}
		svc.Close()
		if err := e.Close(); err != nil {
			return err
		}
	}
	fmt.Printf("# definition-level search and packs — %s\n# %d queries from %s, %d trees, scored by %s\n", machine(), len(qs), *data, len(order), scorer)
	tables := map[string]map[string]float64{}
	for _, f := range formats {
		args := []string{scorer, "--rescore", "--no-materialise", "--spans", *data, "--trees", *trees, "--work", *work, "--tag", "spans-" + f, "--format", f}
		if *repo != "" {
			args = append(args, "--repo", *repo)
		}
		if *perQuery != "" && f == "markdown" {
			args = append(args, "--per-query", *perQuery)
		}
		out, err := exec.Command("python3", append(args, "context-ls")...).Output()
		if err != nil {
			return fmt.Errorf("score_pack.py (%s): %w", f, err)
		}
		fmt.Printf("## %s\n%s", f, out)
		if tables[f], err = scorerAll(string(out)); err != nil {
			return fmt.Errorf("score_pack.py (%s): %w", f, err)
		}
	}
	if *repo != "" || *reports != "" {
		return nil // the targets and floors are the dev set's
	}
	md, js := tables["markdown"], tables["json"]
	for _, s := range spanFigures {
		figure(s.name+" (markdown)", md[s.col], "", s.target, false)
		floor(s.name+" (markdown)", md[s.col], s.floor)
	}
	for _, col := range []string{"cov all @2000", "cov all @4000"} {
		d := md[col] - js[col]
		figure("pack "+col+": markdown − json", d, "", 0.02, true)
		if d > 0.02 {
			belowFloor = append(belowFloor, fmt.Sprintf("json %s %.3f more than 0.02 below markdown's %.3f", col, js[col], md[col]))
		}
	}
	info("pack latency in process p50 (markdown, both budgets)", ms(percentile(packLat, 0.50)), "ms")
	info("pack latency in process p95", ms(percentile(packLat, 0.95)), "ms")
	return nil
}

// withReports writes the rows of data that reports were written for, each
// with its report as the query, to a file under work, and returns its path.
// A report names its row by repository and commit (a prefix); the rows'
// answers stay in data, outside the repository.
func withReports(data, reports, work string) (string, error) {
	rows, err := evalset.ReadLines[map[string]any](data, nil)
	if err != nil {
		return "", err
	}
	type report struct{ Repo, Commit, Query string }
	texts, err := evalset.ReadLines(reports, func(r report) error {
		if r.Repo == "" || r.Commit == "" || r.Query == "" {
			return errors.New("repo, commit and query are required")
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	for _, r := range texts {
		n := 0
		for _, row := range rows {
			if c, _ := row["commit"].(string); row["repo"] == r.Repo && strings.HasPrefix(c, r.Commit) {
				row["query"] = r.Query
				b, err := json.Marshal(row)
				if err != nil {
					return "", err
				}
				out.Write(append(b, '\n'))
				n++
			}
		}
		if n != 1 {
			return "", fmt.Errorf("%s: report for %s@%s matches %d rows of %s, want 1", reports, r.Repo, r.Commit, n, data)
		}
	}
	p := filepath.Join(work, "reports-rows.jsonl")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, out.Bytes(), 0o644)
}

// scorerRowID is score_pack.py's name for a row's output folder.
func scorerRowID(q evalset.LocQuery) string {
	h := sha1.Sum([]byte(q.Query))
	return q.Tree() + "-" + hex.EncodeToString(h[:])[:8]
}

// writeScorerRaw writes one row's outputs as score_pack.py keeps them: a
// file per output and meta.json with each one's exit code.
func writeScorerRaw(dir string, outs map[string]any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	meta := map[string]any{}
	for name, v := range outs {
		var data []byte
		if s, ok := v.(string); ok {
			data = []byte(s)
		} else {
			var err error
			if data, err = json.Marshal(v); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
		meta[name] = map[string]any{"rc": 0, "s": 0, "err": ""}
	}
	data, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "meta.json"), data, 0o644)
}

// scorerAll reads the "all" row of score_pack.py's table into its columns.
func scorerAll(out string) (map[string]float64, error) {
	var head []string
	sc := bufio.NewScanner(strings.NewReader(out))
	cell := regexp.MustCompile(`\s*\|\s*`)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := cell.Split(strings.TrimSpace(strings.Trim(line, "|")), -1)
		if head == nil {
			head = cells
			continue
		}
		if len(cells) == 0 || !strings.HasPrefix(cells[0], "all") {
			continue
		}
		row := map[string]float64{}
		for i, c := range cells {
			if i < len(head) {
				if v, err := strconv.ParseFloat(c, 64); err == nil {
					row[head[i]] = v
				}
			}
		}
		return row, nil
	}
	return nil, fmt.Errorf("no row \"all\" in its output:\n%s", out)
}
