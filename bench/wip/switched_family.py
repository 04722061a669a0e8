import sys, time
import os; ROOT = os.path.join(os.path.dirname(__file__), '..', '..'); sys.path.insert(0, ROOT); sys.path.insert(0, os.path.join(ROOT, 'tests', 'models'))
import onnx
from models.exporter.config import ViTConfig
from models.exporter.params import ViTParams
from models.exporter.families import FAMILIES
from models.exporter.exported_graphs import switched_family_model, explainer_model
from models.exporter.split_export import externalise
from timm_state_dict import random_state_dict
width, heads, depth, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cfg = ViTConfig(name='sw', depth=depth, heads=heads, embed_dim=width, patch_size=16, image_size=(224, 224), num_classes=1000)
params = ViTParams(cfg, random_state_dict(cfg))
passes = FAMILIES['transformer_attribution']
t = time.time()
sw = switched_family_model(cfg, params, passes)
fam = explainer_model(cfg, params, passes)
open(out + '/sw.weights.bin', 'wb').write(externalise([sw, fam], 'sw.weights.bin'))
onnx.save(sw, out + '/sw.onnx'); onnx.save(fam, out + '/fam.onnx')
print('inputs', [(i.name, [d.dim_value or d.dim_param for d in i.type.tensor_type.shape.dim]) for i in sw.graph.input])
print('outputs', [(i.name, [d.dim_value or d.dim_param for d in i.type.tensor_type.shape.dim]) for i in sw.graph.output])
print('built in %.0f s' % (time.time() - t))
