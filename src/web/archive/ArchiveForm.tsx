import { useState } from 'react';
import { type ArchiveConfig, type ArchiveConfigBody, api } from '../api-client/client.js';
import { errorText } from '../shared/error-text.js';

/** Sets up archiving, or replaces its bucket; a replacement without a new secret key keeps the stored one. */
export function ArchiveForm({ current, onDone }: { current: ArchiveConfig | null; onDone: (saved: boolean) => void }) {
  const [body, setBody] = useState<ArchiveConfigBody>(current ?? { integration: 's3', bucket: '', accesskey: '', secretkey: '', forcepathstyle: false });
  const [error, setError] = useState('');
  const [saving, setSaving] = useState(false);
  const set = (change: Partial<ArchiveConfigBody>) => setBody({ ...body, ...change });
  return (
    <form
      className="settings-form"
      aria-label="Archive bucket"
      onSubmit={(event) => {
        event.preventDefault();
        setSaving(true);
        const sent = { ...body, endpoint: body.endpoint || undefined, region: body.region || undefined, secretkey: body.secretkey || undefined };
        api.saveArchiveConfig(sent, current !== null).then(
          () => onDone(true),
          (failure) => {
            setSaving(false);
            setError(errorText(failure));
          },
        );
      }}
    >
      <label>
        Store
        <select value={body.integration} onChange={(event) => set({ integration: event.target.value as ArchiveConfig['integration'] })}>
          <option value="s3">Amazon S3 (or a store that speaks its API)</option>
          <option value="ibm">IBM Cloud Object Storage</option>
          <option value="dos">DigitalOcean Spaces</option>
        </select>
      </label>
      <label>
        Bucket
        <input value={body.bucket} onChange={(event) => set({ bucket: event.target.value })} required data-testid="archive-bucket-input" />
      </label>
      <label>
        Endpoint <span className="muted">(required for IBM and DigitalOcean)</span>
        <input value={body.endpoint ?? ''} onChange={(event) => set({ endpoint: event.target.value })} placeholder="https://…" data-testid="archive-endpoint-input" />
      </label>
      <label>
        Region
        <input value={body.region ?? ''} onChange={(event) => set({ region: event.target.value })} data-testid="archive-region-input" />
      </label>
      <label>
        Access key
        <input value={body.accesskey} onChange={(event) => set({ accesskey: event.target.value })} required autoComplete="off" data-testid="archive-accesskey-input" />
      </label>
      <label>
        Secret key {current && <span className="muted">(leave empty to keep the stored one)</span>}
        <input type="password" value={body.secretkey ?? ''} onChange={(event) => set({ secretkey: event.target.value })} required={!current} autoComplete="new-password" data-testid="archive-secretkey-input" />
      </label>
      <label className="check">
        <input type="checkbox" checked={body.forcepathstyle} onChange={(event) => set({ forcepathstyle: event.target.checked })} data-testid="archive-pathstyle-input" /> Path-style addresses
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <span className="form-actions">
        <button type="submit" className="primary" disabled={saving} data-testid="save-archive">
          {saving ? 'Checking the bucket…' : 'Save'}
        </button>
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </span>
    </form>
  );
}
