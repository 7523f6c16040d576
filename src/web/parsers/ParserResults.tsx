import type { ParserTestResult } from '../api-client/client.js';

/** What a rule's try gives: each line, and the fields it would get (or none). */
export function ParserResults({ result }: { result: ParserTestResult }) {
  return (
    <table className="parser-results" data-testid="parser-results">
      <thead>
        <tr>
          <th>Line</th>
          <th>Fields it would get</th>
        </tr>
      </thead>
      <tbody>
        {result.lines.length === 0 && (
          <tr>
            <td colSpan={2} className="muted">
              No recent lines for these apps, hosts and query; paste sample lines to try the pattern.
            </td>
          </tr>
        )}
        {result.lines.map((line, index) => (
          <tr key={index} className={line.matched ? 'matched' : 'unmatched'}>
            <td>
              <code>{line.line}</code>
            </td>
            <td data-testid="parser-fields">{line.fields ? JSON.stringify(line.level ? { ...line.fields, level: line.level } : line.fields) : 'no match'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
