using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// A field's declared type name for the object inspector. A type the runtime has loaded is named
/// by ClrMD (its method table: the exact instantiation, e.g. Box&lt;System.String&gt;.Value is
/// System.String). A type the runtime never loaded has no method table, and ClrMD then answers a
/// placeholder ("Object" for any class, "System.ValueType[]" for an array of classes); such a
/// field's declared type is read from its signature in the module's metadata instead, which the
/// dump holds (ClrModule.MetadataAddress), decoded with System.Reflection.Metadata. Costs one read
/// of each module's metadata the first time one of its fields needs it (a few MB for CoreLib).
/// </summary>
public sealed partial class DeclaredTypes(IDataReader memory)
{
    private readonly Dictionary<ulong, MetadataReaderProvider?> modules = new();

    public string Name(ClrInstanceField f)
    {
        // ClrMD answers an instantiation that is not loaded with its generic definition, naming the
        // parameters T1, T2… (Dictionary<T1, T2>): the metadata has the declared arguments.
        if (f.Type is { MethodTable: not 0, Name: string loaded } && !Placeholder().IsMatch(loaded)) return loaded;
        return FromMetadata(f) ?? f.Type?.Name ?? f.ElementType.ToString();
    }

    [System.Text.RegularExpressions.GeneratedRegex(@"[<,] ?T\d+(?=[,>])")]
    private static partial System.Text.RegularExpressions.Regex Placeholder();

    private string? FromMetadata(ClrInstanceField f)
    {
        ClrModule? module = f.ContainingType?.Module;
        if (module is null || f.Token == 0 || Reader(module) is not { } r) return null;
        try
        {
            FieldDefinition field = r.GetFieldDefinition(MetadataTokens.FieldDefinitionHandle(f.Token & 0xFFFFFF));
            ImmutableArray<string> generics = [.. r.GetTypeDefinition(field.GetDeclaringType()).GetGenericParameters()
                .Select(h => r.GetString(r.GetGenericParameter(h).Name))];
            return field.DecodeSignature(new SignatureNames(), generics);
        }
        catch (Exception e) when (e is BadImageFormatException or ArgumentException or InvalidOperationException)
        {
            return null; // metadata not in the dump or not what the token says: keep ClrMD's answer
        }
    }

    private MetadataReader? Reader(ClrModule module)
    {
        if (!modules.TryGetValue(module.Address, out MetadataReaderProvider? provider))
        {
            provider = null;
            if (module.MetadataAddress != 0 && module.MetadataLength is > 0 and < int.MaxValue)
            {
                var bytes = new byte[module.MetadataLength];
                if (memory.Read(module.MetadataAddress, bytes) == bytes.Length)
                    provider = MetadataReaderProvider.FromMetadataImage(ImmutableCollectionsMarshal.AsImmutableArray(bytes));
            }
            modules[module.Address] = provider;
        }
        try
        {
            return provider?.GetMetadataReader();
        }
        catch (BadImageFormatException)
        {
            return null;
        }
    }

    /// <summary>Signature → name in ClrMD's style: Ns.Outer&lt;A, B&gt;+Inner, T[], T[,], T*.</summary>
    private sealed class SignatureNames : ISignatureTypeProvider<string, ImmutableArray<string>>
    {
        public string GetPrimitiveType(PrimitiveTypeCode code) => "System." + code;
        public string GetTypeFromDefinition(MetadataReader r, TypeDefinitionHandle handle, byte rawTypeKind)
        {
            TypeDefinition t = r.GetTypeDefinition(handle);
            string name = r.GetString(t.Name);
            TypeDefinitionHandle outer = t.GetDeclaringType();
            return !outer.IsNil ? GetTypeFromDefinition(r, outer, 0) + "+" + name
                : t.Namespace.IsNil ? name : r.GetString(t.Namespace) + "." + name;
        }
        public string GetTypeFromReference(MetadataReader r, TypeReferenceHandle handle, byte rawTypeKind)
        {
            TypeReference t = r.GetTypeReference(handle);
            string name = r.GetString(t.Name);
            if (t.ResolutionScope.Kind == HandleKind.TypeReference) return GetTypeFromReference(r, (TypeReferenceHandle)t.ResolutionScope, 0) + "+" + name;
            return t.Namespace.IsNil ? name : r.GetString(t.Namespace) + "." + name;
        }
        public string GetTypeFromSpecification(MetadataReader r, ImmutableArray<string> generics, TypeSpecificationHandle handle, byte rawTypeKind) =>
            r.GetTypeSpecification(handle).DecodeSignature(this, generics);
        public string GetSZArrayType(string element) => element + "[]";
        public string GetArrayType(string element, ArrayShape shape) => element + "[" + new string(',', Math.Max(0, shape.Rank - 1)) + "]";
        public string GetPointerType(string element) => element + "*";
        public string GetByReferenceType(string element) => element + "&";
        public string GetPinnedType(string element) => element;
        public string GetModifiedType(string modifier, string unmodified, bool isRequired) => unmodified;
        public string GetFunctionPointerType(MethodSignature<string> signature) => "method " + signature.ReturnType + "*(" + string.Join(", ", signature.ParameterTypes) + ")";
        public string GetGenericTypeParameter(ImmutableArray<string> generics, int index) => index < generics.Length ? generics[index] : "!" + index;
        public string GetGenericMethodParameter(ImmutableArray<string> generics, int index) => "!!" + index;

        /// <summary>Dictionary`2+KeyCollection with [K, V] → Dictionary&lt;K, V&gt;+KeyCollection: each nesting level takes its arity's arguments.</summary>
        public string GetGenericInstantiation(string generic, ImmutableArray<string> args)
        {
            string[] parts = generic.Split('+');
            int next = 0;
            for (int i = 0; i < parts.Length; i++)
            {
                int tick = parts[i].LastIndexOf('`');
                if (tick < 0 || !int.TryParse(parts[i].AsSpan(tick + 1), out int arity)) continue;
                int take = Math.Min(arity, args.Length - next);
                parts[i] = parts[i][..tick] + "<" + string.Join(", ", args.Skip(next).Take(take)) + ">";
                next += take;
            }
            return string.Join("+", parts);
        }
    }
}
