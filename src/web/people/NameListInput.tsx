/** One of a group's exact lists (apps or hosts): names separated by commas, compared exactly with each line's. */
export function NameListInput({ label, value, onChange, placeholder, testId }: { label: string; value: string; onChange: (text: string) => void; placeholder: string; testId: string }) {
  return (
    <label>
      {label}
      <input className="mono" value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} aria-describedby="lists-help" data-testid={testId} />
    </label>
  );
}
