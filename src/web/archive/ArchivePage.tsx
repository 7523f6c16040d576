import { useCallback, useEffect, useState } from 'react';
import { ApiError, type ArchiveConfig, type ArchiveStatus, type Session, api } from '../api-client/client.js';
import { errorText } from '../shared/error-text.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { ArchiveForm } from './ArchiveForm.js';
import { SettingsFrame } from '../shared/SettingsFrame.js';

/**
 * The organisation's archive, for admins: the bucket its lines go to (never the secret key, which
 * the server does not give back), the archiver's progress and newest files, and a form that sets
 * or replaces the bucket. The server proves the credentials by writing to the bucket before it saves.
 * The archive carries every line of the organisation, so an admin with an access scope may see it
 * and end it, but not say where it goes: the server refuses them that (archive-routes.ts), and the
 * page does not offer it.
 */
export function ArchivePage({ session }: { session: Pick<Session, 'scoped'> }) {
  const maySetBucket = !session.scoped;
  const [config, setConfig] = useState<ArchiveConfig | null | undefined>(undefined);
  const [status, setStatus] = useState<ArchiveStatus | null>(null);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState('');
  const reload = useCallback(() => {
    api.archiveConfig().then(setConfig, (failure) => (failure instanceof ApiError && failure.status === 404 ? setConfig(null) : setError(errorText(failure))));
    api.archiveStatus().then(setStatus, (failure) => setError(errorText(failure)));
  }, []);
  useEffect(reload, [reload]);
  return (
    <SettingsFrame
      title="Archive"
      name="archive"
      actions={
        config !== undefined && !editing && maySetBucket && (
          <button type="button" onClick={() => setEditing(true)} data-testid="edit-archive">
            {config ? 'Change the bucket' : 'Set up archiving'}
          </button>
        )
      }
    >
      <p className="muted">Each hour’s lines go to the bucket as gzip JSON Lines, once; a range past retention can be restored from the search page.</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!maySetBucket && (
        <p className="muted" data-testid="archive-scoped-note">
          Your access scope limits which lines you see; the archive carries every line, so only an admin without a scope sets its bucket.
        </p>
      )}
      {config === null && !editing && (
        <p data-testid="archive-config" data-configured="false">
          Archiving is not configured.
        </p>
      )}
      {config && !editing && <ArchiveSummary config={config} />}
      {editing && (
        <ArchiveForm
          current={config ?? null}
          onDone={(saved) => {
            setEditing(false);
            if (saved) reload();
          }}
        />
      )}
      {config && !editing && (
        <button
          type="button"
          className="danger"
          onClick={() => {
            if (!window.confirm('End archiving? Lines stop going to the bucket; the files written stay there.')) return;
            api.endArchiving().then(reload, (failure) => setError(errorText(failure)));
          }}
          data-testid="end-archiving"
        >
          End archiving
        </button>
      )}
      {status && status.configured && <ArchiveProgress status={status} />}
    </SettingsFrame>
  );
}

function ArchiveSummary({ config }: { config: ArchiveConfig }) {
  return (
    <dl className="settings-facts" data-testid="archive-config" data-configured="true">
      <dt>Store</dt>
      <dd>{{ s3: 'Amazon S3', ibm: 'IBM Cloud Object Storage', dos: 'DigitalOcean Spaces' }[config.integration]}</dd>
      <dt>Bucket</dt>
      <dd className="mono" data-testid="archive-bucket">
        {config.bucket}
      </dd>
      {config.endpoint && (
        <>
          <dt>Endpoint</dt>
          <dd className="mono">{config.endpoint}</dd>
        </>
      )}
      {config.region && (
        <>
          <dt>Region</dt>
          <dd>{config.region}</dd>
        </>
      )}
      <dt>Access key</dt>
      <dd className="mono">{config.accesskey}</dd>
    </dl>
  );
}

function ArchiveProgress({ status }: { status: ArchiveStatus }) {
  const times = useTimeFormats();
  return (
    <>
      <p data-testid="archive-progress">
        {status.pending} {status.pending === 1 ? 'file' : 'files'} waiting{status.failing ? `, ${status.failing} failing` : ''}.
        {status.configuredAt ? ` Archiving since ${times.full.format(status.configuredAt)}.` : ''}
      </p>
      {status.files.length > 0 && (
        <table className="settings-table" data-testid="archive-files">
          <thead>
            <tr>
              <th>Hour</th>
              <th>File</th>
              <th>State</th>
              <th>Lines</th>
            </tr>
          </thead>
          <tbody>
            {status.files.map((file) => (
              <tr key={file.object}>
                <td>{file.hour}</td>
                <td className="mono">{file.object}</td>
                <td>{file.status === 'written' ? 'written' : file.lastError ? `failing: ${file.lastError}` : 'waiting'}</td>
                <td>{file.lines?.toLocaleString() ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
