import { CATEGORY_TYPES, type CategoryType } from '../../views/categories.js';
import { parseCategoryName } from '../../views/category-routes.js';
import { type SourceItem, type ResourceKind, text } from './resource-kind.js';

interface CategoryInput {
  type: CategoryType;
  name: string;
}

export const categories: ResourceKind<CategoryInput> = {
  kind: 'category',
  fields: { carried: ['name', 'type'], ignored: ['id', 'account', '_created', '_modified', 'created', 'modified'] },
  async read(source) {
    const all: SourceItem[] = [];
    // Each is tagged with its type, which the path gives (a source may not echo it).
    for (const type of CATEGORY_TYPES) for (const item of await source.list(`/v1/config/categories/${type}`)) all.push({ ...item, type });
    return all;
  },
  async readLocal(local) {
    const byKey = new Map<string, string>();
    for (const type of CATEGORY_TYPES) for (const category of await local.categories.list(local.account, type)) byKey.set(`${type}/${category.name.toLowerCase()}`, category.id);
    return byKey;
  },
  key: (item) => (text(item.name) ? { key: `${item.type}/${text(item.name)!.trim().toLowerCase()}`, name: `${item.type}/${text(item.name)!.trim()}` } : undefined),
  check: (item) => ({ type: item.type as CategoryType, name: parseCategoryName({ name: item.name }) }),
  async create(input, local) {
    const created = await local.categories.create(local.account, input.type, input.name);
    await local.record('category', 'create', created.id, null, created);
  },
  // Matched by type and name, a category has nothing else to bring in line.
  update: undefined,
};
