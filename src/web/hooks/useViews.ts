import { useCallback, useEffect, useState } from 'react';
import { type Preset, type View, api } from '../api.js';

/** The organisation's saved views, preset alerts and view categories, read from the config API. */
export function useViews() {
  const [views, setViews] = useState<View[]>([]);
  const [presets, setPresets] = useState<Preset[]>([]);
  const [categories, setCategories] = useState<string[]>([]);
  const [loaded, setLoaded] = useState(false);

  const reload = useCallback(async () => {
    const [viewList, presetList, categoryList] = await Promise.all([
      api<View[]>('GET', '/v1/config/view'),
      api<Preset[]>('GET', '/v1/config/presetalert'),
      api<Array<{ name: string }>>('GET', '/v1/config/categories/views'),
    ]);
    setViews(viewList);
    setPresets(presetList);
    setCategories(categoryList.map((category) => category.name));
  }, []);

  useEffect(() => {
    void reload()
      .then(() => undefined)
      .finally(() => setLoaded(true));
  }, [reload]);

  return { views, presets, categories, loaded, reload };
}
