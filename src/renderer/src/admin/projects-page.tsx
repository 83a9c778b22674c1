/**
 * Projects: create, rename, archive/unarchive, edit limits, delete (a project that still
 * holds something answers 409 and its message is shown).
 */
import { useEffect, useState } from 'react';
import type { Project } from '../../../shared/wire/org';
import { createProject, deleteProject, updateProject, useProjects } from '../stores/projects';
import { Badge, Button, EmptyState, ErrorBanner, Field, PageHeader, formatTime } from '../components/ui';
import { ConfirmDialog, Dialog } from '../components/dialog';
import { notify, reportError } from '../stores/toasts';
import { errorMessage } from '../transport/transport';
import { ProjectLimitsDialog } from './project-limits-dialog';

function RenameDialog({ project, onClose }: { project: Project | null; onClose: () => void }): React.JSX.Element | null {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setName(project?.name ?? '');
    setError(null);
  }, [project]);
  const save = async (): Promise<void> => {
    if (!project) return;
    setBusy(true);
    try {
      await updateProject(project.id, { name });
      notify(`Renamed to ${name}`);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={!!project}
      title="Rename project"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={busy} onClick={() => void save()}>
            Save
          </Button>
        </>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Field label="Project name">
          <input value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </Field>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </Dialog>
  );
}

export function ProjectsPage(): React.JSX.Element {
  const { items, loaded, error, refresh, filters, setFilters } = useProjects();
  const [name, setName] = useState('');
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<Project | null>(null);
  const [limits, setLimits] = useState<Project | null>(null);
  const [deleting, setDeleting] = useState<Project | null>(null);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  return (
    <section className="page">
      <PageHeader title="Projects" subtitle="Sessions, keys and limits are scoped to projects." />
      <form
        className="toolbar"
        onSubmit={async (e) => {
          e.preventDefault();
          setCreating(true);
          try {
            const p = await createProject(name);
            setName('');
            notify(`Created project ${p.name}`);
          } catch (err) {
            reportError(err);
          } finally {
            setCreating(false);
          }
        }}
      >
        <input aria-label="New project name" placeholder="New project name" value={name} onChange={(e) => setName(e.target.value)} />
        <Button type="submit" variant="primary" busy={creating} disabled={!name.trim()}>
          Create project
        </Button>
        <span className="spacer" />
        <input
          type="search"
          data-search
          aria-label="Search projects"
          placeholder="Search  ( / )"
          value={filters.query}
          onChange={(e) => setFilters({ query: e.target.value })}
        />
      </form>
      {error ? <ErrorBanner message={error} onRetry={() => void refresh()} /> : null}
      {loaded && !items.length && !error ? <EmptyState title="No projects match">Clear the search, or create a project above.</EmptyState> : null}
      {items.length ? (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th>Created</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((p) => (
              <tr key={p.id}>
                <td>
                  <span className="strong">{p.name}</span>
                  <div className="mono small muted">{p.id}</div>
                </td>
                <td>{p.status === 'active' ? <Badge tone="ok">active</Badge> : <Badge tone="warn">archived</Badge>}</td>
                <td>{formatTime(p.created_at)}</td>
                <td>{formatTime(p.updated_at)}</td>
                <td className="row-actions">
                  <Button onClick={() => setRenaming(p)}>Rename</Button>
                  <Button onClick={() => setLimits(p)}>Limits</Button>
                  <Button
                    onClick={() =>
                      void updateProject(p.id, { status: p.status === 'active' ? 'archived' : 'active' }).then(
                        (u) => notify(`${u.name} is ${u.status}`),
                        reportError,
                      )
                    }
                  >
                    {p.status === 'active' ? 'Archive' : 'Unarchive'}
                  </Button>
                  <Button variant="danger" onClick={() => setDeleting(p)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <RenameDialog project={renaming} onClose={() => setRenaming(null)} />
      <ProjectLimitsDialog project={limits} onClose={() => setLimits(null)} />
      <ConfirmDialog
        open={!!deleting}
        title={`Delete project ${deleting?.name ?? ''}?`}
        message="Only an empty project can be deleted. The server says what is still in it otherwise."
        confirmLabel="Delete"
        danger
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await deleteProject(deleting!.id);
          notify(`Deleted project ${deleting!.name}`);
        }}
      />
    </section>
  );
}
